import domains from 'disposable-email-domains';

/** The maintained list of disposable-mail domains (the `disposable-email-domains` package). */
const DISPOSABLE = new Set<string>(domains.map((d) => d.toLowerCase()));

/**
 * Whether the email's domain, or a parent domain of it, is a disposable-mail domain:
 * `x@mailinator.com` and `x@eu.mailinator.com` are, `x@gmail.com` is not.
 */
export function isDisposableEmail(email: string): boolean {
  const at = email.lastIndexOf('@');
  if (at < 0) return false;
  const labels = email
    .slice(at + 1)
    .toLowerCase()
    .replace(/\.$/, '')
    .split('.');
  for (let i = 0; i < labels.length - 1; i++) {
    if (DISPOSABLE.has(labels.slice(i).join('.'))) return true;
  }
  return false;
}
