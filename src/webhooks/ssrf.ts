import { BlockList, isIP } from 'node:net';

/**
 * SPEC 6's refused destinations: loopback, private, carrier-grade NAT, link-local (cloud metadata
 * 169.254.169.254 included), benchmarking, multicast and reserved IPv4; unspecified, loopback,
 * unique-local and link-local IPv6; and every IPv6 form that embeds an IPv4 address
 * (IPv4-mapped, NAT64, 6to4), which could otherwise smuggle a private one through.
 */
// Two lists: Node matches IPv4 addresses against IPv6 rules in their ::ffff: form, so the
// IPv4-mapped rule would otherwise forbid every IPv4 address.
const blockedV4 = new BlockList();
const blockedV6 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  blockedV4.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['2002::', 16],
] as const) {
  blockedV6.addSubnet(network, prefix, 'ipv6');
}

/** Whether a delivery may connect to `address` (an IP literal). */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return family === 4 ? blockedV4.check(address, 'ipv4') : blockedV6.check(address, 'ipv6');
}
