import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * docs/webhooks.md's refused destinations, decided by one maintained classification instead of a
 * hand-kept list: ipaddr.js's `range()`, which follows the IANA IPv4 and IPv6 Special-Purpose
 * Address Registries (unspecified, broadcast, multicast, link-local, loopback, carrier-grade NAT,
 * private, unique-local, the documentation TEST-NETs, benchmarking, 192.0.0.0/24, AS112, AMT,
 * ORCHIDv2, Teredo, 6to4, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, IPv4-mapped and IPv4-translated
 * forms, reserved blocks …). Only what it calls `unicast`, the rest of the address space, may be
 * used.
 *
 * IPv6 must moreover lie in 2000::/3, the only block IANA's IPv6 Address Space registry has
 * allocated as Global Unicast: that refuses what the special-purpose registry leaves to that other
 * registry, such as ::/96 (the deprecated IPv4-compatible form, `[::127.0.0.1]`), the site-local
 * fec0::/10, 100::/64 and every unallocated block.
 *
 * The IPv6 forms that carry an IPv4 address are refused whatever it is (docs/webhooks.md); their
 * embedded IPv4 address is checked as well, so a private one stays refused even if a form were ever
 * let through (say, NAT64 on an IPv6-only host).
 */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  // Not an IP literal, or one with a zone index (`fe80::1%eth0`): never a public destination.
  if (family === 0 || address.includes('%')) return true;
  if (family === 4) return ipaddr.IPv4.parse(address).range() !== 'unicast';
  // Through the WHATWG URL parser first, which spells an address the way RFC 4291 reads it:
  // ipaddr.js would read `::127.0.0.1` as `::ffff:127.0.0.1` rather than `::7f00:1`.
  const v6 = ipaddr.IPv6.parse(new URL(`http://[${address}]/`).hostname.slice(1, -1));
  if (embeddedIPv4(v6).some((v4) => v4.range() !== 'unicast')) return true;
  return v6.range() !== 'unicast' || !GLOBAL_UNICAST.some((block) => v6.match(block));
}

/** IANA's IPv6 Global Unicast allocation. */
const GLOBAL_UNICAST = [ipaddr.IPv6.parseCIDR('2000::/3')];

const v4 = (high: number, low: number) =>
  new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/**
 * The IPv4 addresses an IPv6 address carries: IPv4-mapped (::ffff:0:0/96), IPv4-translated
 * (::ffff:0:0:0/96) and IPv4-compatible (::/96) in its last 32 bits; NAT64 (64:ff9b::/96) in its
 * last 32 bits; 6to4 (2002::/16) in bits 16–47; Teredo (2001::/32) its server in bits 32–63 and
 * its client, inverted, in the last 32 bits. Empty for any other address.
 */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const p = address.parts;
  const last = v4(p[6], p[7]);
  const zero = (from: number, to: number) => p.slice(from, to).every((part) => part === 0);
  if (zero(0, 5) && (p[5] === 0xffff || p[5] === 0)) return [last]; // mapped, compatible
  if (zero(0, 4) && p[4] === 0xffff && p[5] === 0) return [last]; // translated
  if (p[0] === 0x64 && p[1] === 0xff9b && zero(2, 6)) return [last]; // NAT64 well-known prefix
  if (p[0] === 0x2002) return [v4(p[1], p[2])]; // 6to4
  if (p[0] === 0x2001 && p[1] === 0) return [v4(p[2], p[3]), v4(p[6] ^ 0xffff, p[7] ^ 0xffff)];
  return [];
}
