/**
 * The mailbox an address delivers to, for comparing two addresses as the same person
 * (docs/fraud.md, "Comparing emails"): `Ivan.Petrov+shop@googlemail.com` and
 * `ivanpetrov@gmail.com` are one mailbox. Only for comparing: the address as given is what is
 * stored and shown.
 *
 * - every address: trimmed and lower-cased (the local part too: no mainstream provider tells
 *   cases apart), the domain without a trailing dot, and the local part without a `+tag`
 *   (sub-addressing, which Gmail, Outlook, iCloud, Yandex, Mail.ru, Fastmail and Proton deliver
 *   to the same mailbox); a local part that is only a tag is kept whole;
 * - Gmail: `googlemail.com` is `gmail.com`, and dots in the local part are ignored;
 * - Yandex: `ya.ru`, `yandex.com`, `yandex.by`, `yandex.kz`, `yandex.ua` are `yandex.ru`, and a
 *   dot in a login is the same as a hyphen.
 *
 * Providers that sub-address with another character (Yahoo's `-`) are not folded: a false
 * match would flag an honest partner, a missed one only lets a rare evasion through.
 */
export function mailboxOf(email: string): string {
  const address = email.trim().toLowerCase();
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1) return address;
  let local = address.slice(0, at);
  let domain = address.slice(at + 1).replace(/\.+$/, '');
  const plus = local.indexOf('+');
  if (plus > 0) local = local.slice(0, plus);
  domain = DOMAIN_ALIASES[domain] ?? domain;
  if (domain === 'gmail.com') local = local.replace(/\./g, '') || local;
  if (domain === 'yandex.ru') local = local.replace(/\./g, '-');
  return `${local}@${domain}`;
}

/** Whether two addresses (either may be missing) deliver to the same mailbox. */
export function sameMailbox(a: string | null | undefined, b: string | null | undefined): boolean {
  return !!a && !!b && mailboxOf(a) === mailboxOf(b);
}

const DOMAIN_ALIASES: Readonly<Record<string, string>> = {
  'googlemail.com': 'gmail.com',
  'ya.ru': 'yandex.ru',
  'yandex.com': 'yandex.ru',
  'yandex.by': 'yandex.ru',
  'yandex.kz': 'yandex.ru',
  'yandex.ua': 'yandex.ru',
};
