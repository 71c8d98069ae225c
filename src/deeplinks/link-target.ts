import { hasControlCharacter } from '../tenants/link-templates';
import type { TargetType } from './deeplink.entity';

const TARGET_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/**
 * docs/embedding.md §4's open-redirect rules. A website target must be an absolute https URL (http
 * only for localhost) on a host the tenant allows (its allowed_origins' hosts or link_domains),
 * with no user info, no backslashes or control characters, and written with `scheme://` itself
 * (WHATWG URL parsing would otherwise accept `https:evil.example` or `https:\\evil.example`). Hosts
 * are compared after IDN-to-ASCII conversion, so a look-alike Unicode host never equals an allowed
 * one.
 */
export function isAllowedTarget(
  type: TargetType,
  targetId: string,
  allowedHosts: ReadonlySet<string>,
): boolean {
  if (type !== 'website') return TARGET_ID.test(targetId);
  if (targetId.length > 2048 || /[\\\s]/.test(targetId) || hasControlCharacter(targetId))
    return false;
  if (!/^https?:\/\/[^/?#@]+([/?#]|$)/i.test(targetId)) return false;
  let url: URL;
  try {
    url = new URL(targetId);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  const localhost = url.hostname === 'localhost';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && localhost)) return false;
  return allowedHosts.has(url.hostname);
}

/** The hosts a tenant's website links may point at. */
export function allowedHostsOf(allowedOrigins: string[], linkDomains: string[]): Set<string> {
  const hosts = new Set<string>(linkDomains.map((d) => d.toLowerCase()));
  for (const origin of allowedOrigins) {
    try {
      hosts.add(new URL(origin).hostname);
    } catch {
      // allowed_origins are validated on write; an unparsable one allows nothing
    }
  }
  return hosts;
}
