import ipaddr from 'ipaddr.js';
import { embeddedIPv4, isForbiddenAddress } from './ssrf';

/**
 * docs/webhooks.md's refused destinations and the IANA special-purpose blocks, written out here
 * (not read from the code under test): a delivery may never connect to these, and a URL whose host
 * resolves to one is refused when it is set. Each block is tested at its first and last address,
 * and the addresses just outside it are public.
 */
describe('isForbiddenAddress', () => {
  it.each([
    ['8.8.8.8'],
    ['1.1.1.1'],
    ['93.184.216.34'],
    ['2606:4700:4700::1111'],
    ['2001:4860:4860::8888'],
    ['2a00:1450:4001:80b::200e'],
    // Just outside each blocked IPv4 range.
    ['1.0.0.0'],
    ['9.255.255.255'],
    ['11.0.0.0'],
    ['100.63.255.255'],
    ['100.128.0.0'],
    ['126.255.255.255'],
    ['128.0.0.0'],
    ['169.253.255.255'],
    ['169.255.0.0'],
    ['172.15.255.255'],
    ['172.32.0.0'],
    ['191.255.255.255'],
    ['192.0.1.0'],
    ['192.0.3.0'],
    ['192.88.98.255'],
    ['192.88.100.0'],
    ['192.167.255.255'],
    ['192.169.0.0'],
    ['198.17.255.255'],
    ['198.20.0.0'],
    ['198.51.99.255'],
    ['198.51.101.0'],
    ['203.0.112.255'],
    ['203.0.114.0'],
    ['223.255.255.255'],
    // Just outside the blocked IPv6 ranges, inside 2000::/3.
    ['2000::1'],
    ['2001:200::1'], // past 2001::/23
    ['2001:db7:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['2001:db9::1'],
    ['2003::1'],
  ])('allows the public address %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });

  it.each([
    // 0.0.0.0/8: "this network", the unspecified address included.
    ['0.0.0.0/8', '0.0.0.0'],
    ['0.0.0.0/8', '0.255.255.255'],
    ['10.0.0.0/8 (private)', '10.0.0.0'],
    ['10.0.0.0/8 (private)', '10.0.0.1'],
    ['10.0.0.0/8 (private)', '10.255.255.255'],
    ['100.64.0.0/10 (carrier-grade NAT)', '100.64.0.0'],
    ['100.64.0.0/10 (carrier-grade NAT)', '100.127.255.255'],
    ['127.0.0.0/8 (loopback)', '127.0.0.1'],
    ['127.0.0.0/8 (loopback)', '127.255.255.254'],
    ['169.254.0.0/16 (link-local, cloud metadata)', '169.254.0.0'],
    ['169.254.0.0/16 (link-local, cloud metadata)', '169.254.169.254'],
    ['169.254.0.0/16 (link-local, cloud metadata)', '169.254.255.255'],
    ['172.16.0.0/12 (private)', '172.16.0.0'],
    ['172.16.0.0/12 (private)', '172.31.255.255'],
    ['192.0.0.0/24 (IETF protocol assignments)', '192.0.0.0'],
    ['192.0.0.0/24 (IETF protocol assignments)', '192.0.0.8'],
    ['192.0.0.0/24 (IETF protocol assignments)', '192.0.0.170'],
    ['192.0.0.0/24 (IETF protocol assignments)', '192.0.0.255'],
    ['192.0.2.0/24 (TEST-NET-1)', '192.0.2.0'],
    ['192.0.2.0/24 (TEST-NET-1)', '192.0.2.255'],
    ['192.31.196.0/24 (AS112)', '192.31.196.1'],
    ['192.52.193.0/24 (AMT)', '192.52.193.1'],
    ['192.88.99.0/24 (6to4 relay anycast)', '192.88.99.1'],
    ['192.168.0.0/16 (private)', '192.168.0.0'],
    ['192.168.0.0/16 (private)', '192.168.1.1'],
    ['192.168.0.0/16 (private)', '192.168.255.255'],
    ['192.175.48.0/24 (AS112)', '192.175.48.1'],
    ['198.18.0.0/15 (benchmarking)', '198.18.0.0'],
    ['198.18.0.0/15 (benchmarking)', '198.19.255.255'],
    ['198.51.100.0/24 (TEST-NET-2)', '198.51.100.0'],
    ['198.51.100.0/24 (TEST-NET-2)', '198.51.100.255'],
    ['203.0.113.0/24 (TEST-NET-3)', '203.0.113.0'],
    ['203.0.113.0/24 (TEST-NET-3)', '203.0.113.255'],
    ['224.0.0.0/4 (multicast)', '224.0.0.0'],
    ['224.0.0.0/4 (multicast)', '224.0.0.1'],
    ['224.0.0.0/4 (multicast)', '239.255.255.255'],
    ['240.0.0.0/4 (reserved)', '240.0.0.1'],
    ['240.0.0.0/4 (reserved)', '255.255.255.254'],
    ['255.255.255.255/32 (broadcast)', '255.255.255.255'],
    // IPv6 unspecified and loopback, in several spellings
    ['::/128 (unspecified)', '::'],
    ['::/128 (unspecified)', '0000:0000:0000:0000:0000:0000:0000:0000'],
    ['::1/128 (loopback)', '::1'],
    ['::1/128 (loopback)', '0:0:0:0:0:0:0:1'],
    // ::/96, the deprecated IPv4-compatible form (outside 2000::/3)
    ['::/96 (IPv4-compatible)', '::127.0.0.1'],
    ['::/96 (IPv4-compatible)', '::7f00:1'],
    ['::/96 (IPv4-compatible)', '::8.8.8.8'],
    ['::/96 (IPv4-compatible)', '::2'],
    ['::/96 (IPv4-compatible)', '::ffff'],
    // IPv4-mapped ::ffff:0:0/96 (private and public IPv4 alike), dotted, hex and upper case
    ['::ffff:0:0/96 (IPv4-mapped)', '::ffff:10.0.0.1'],
    ['::ffff:0:0/96 (IPv4-mapped)', '::ffff:127.0.0.1'],
    ['::ffff:0:0/96 (IPv4-mapped)', '::ffff:7f00:1'],
    ['::ffff:0:0/96 (IPv4-mapped)', '::FFFF:169.254.169.254'],
    ['::ffff:0:0/96 (IPv4-mapped)', '::ffff:8.8.8.8'],
    // ::ffff:0:0:0/96, IPv4-translated (RFC 6145)
    ['::ffff:0:0:0/96 (IPv4-translated)', '::ffff:0:7f00:1'],
    ['::ffff:0:0:0/96 (IPv4-translated)', '::ffff:0:808:808'],
    // NAT64: 64:ff9b::/96 and the local-use 64:ff9b:1::/48
    ['64:ff9b::/96 (NAT64)', '64:ff9b::a00:1'],
    ['64:ff9b::/96 (NAT64)', '64:ff9b::10.0.0.1'],
    ['64:ff9b::/96 (NAT64)', '64:ff9b::808:808'],
    ['64:ff9b:1::/48 (local-use NAT64)', '64:ff9b:1::a00:1'],
    ['64:ff9b:1::/48 (local-use NAT64)', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff'],
    ['100::/64 (discard-only)', '100::1'],
    // 2001::/23 (IETF protocol assignments) and what lies in it
    ['2001::/32 (Teredo)', '2001::1'],
    ['2001::/32 (Teredo)', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    ['2001::/32 (Teredo)', '2001:0:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['2001:1::1/128 (port control anycast)', '2001:1::1'],
    ['2001:2::/48 (benchmarking)', '2001:2::1'],
    ['2001:3::/32 (AMT)', '2001:3::1'],
    ['2001:4:112::/48 (AS112-v6)', '2001:4:112::1'],
    ['2001:10::/28 (deprecated ORCHID)', '2001:10::1'],
    ['2001:20::/28 (ORCHIDv2)', '2001:20::1'],
    ['2001:30::/28 (drone remote ID)', '2001:30::1'],
    ['2001::/23 (IETF protocol assignments)', '2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['2001:db8::/32 (documentation)', '2001:db8::1'],
    ['2001:db8::/32 (documentation)', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff'],
    // 6to4 (2002::/16)
    ['2002::/16 (6to4)', '2002::1'],
    ['2002::/16 (6to4)', '2002:c0a8:101::1'],
    ['2002::/16 (6to4)', '2002:808:808::1'],
    ['2002::/16 (6to4)', '2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['2620:4f:8000::/48 (AS112 direct delegation)', '2620:4f:8000::1'],
    ['3fff::/20 (documentation)', '3fff::1'],
    ['3fff::/20 (documentation)', '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['5f00::/16 (segment routing)', '5f00::1'],
    // fc00::/7 (unique local)
    ['fc00::/7 (unique local)', 'fc00::1'],
    ['fc00::/7 (unique local)', 'fd12:3456:789a::1'],
    ['fc00::/7 (unique local)', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    // fe80::/10 (link-local), fec0::/10 (deprecated site-local)
    ['fe80::/10 (link-local)', 'fe80::1'],
    ['fe80::/10 (link-local)', 'febf:ffff::1'],
    ['fec0::/10 (site-local)', 'fec0::1'],
    ['fec0::/10 (site-local)', 'feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['ff00::/8 (multicast)', 'ff02::1'],
    ['ff00::/8 (multicast)', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    // Outside 2000::/3, IANA's only global unicast allocation
    ['outside 2000::/3', '1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['outside 2000::/3', '4000::1'],
    ['outside 2000::/3', 'e000::1'],
  ])('refuses %s: %s', (_block, address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each([
    [''],
    ['localhost'],
    ['example.com'],
    ['not an ip'],
    ['999.1.1.1'],
    ['1.2.3'],
    ['1.2.3.4.5'],
    ['8.8.8.8/32'],
    [' 8.8.8.8'],
    ['8.8.8.8 '],
    ['::gg'],
    ['[::1]'],
    ['1::2::3'],
    ['0x7f000001'],
    ['2130706433'],
    ['017700000001'],
    ['127.1'],
    // A zone index: only ever meaningful for link-local and other on-link destinations.
    ['2606:4700:4700::1111%eth0'],
    ['fe80::1%eth0'],
  ])('refuses %j, which is not a plain IP literal', (input) => {
    expect(isForbiddenAddress(input)).toBe(true);
  });
});

describe('embeddedIPv4', () => {
  const embedded = (address: string) =>
    embeddedIPv4(ipaddr.IPv6.parse(address)).map((a) => a.toString());

  it.each([
    ['IPv4-mapped', '::ffff:a00:1', ['10.0.0.1']],
    ['IPv4-compatible', '::7f00:1', ['127.0.0.1']],
    ['IPv4-translated', '::ffff:0:c0a8:101', ['192.168.1.1']],
    ['NAT64', '64:ff9b::a9fe:a9fe', ['169.254.169.254']],
    ['6to4', '2002:c0a8:101::1', ['192.168.1.1']],
    // RFC 4380's example: server 65.54.227.120, client 192.0.2.45 (stored inverted).
    ['Teredo', '2001:0:4136:e378:8000:63bf:3fff:fdd2', ['65.54.227.120', '192.0.2.45']],
    ['a global address', '2606:4700:4700::1111', []],
  ])('reads the IPv4 address of the %s form %s', (_form, address, expected) => {
    expect(embedded(address)).toEqual(expected);
  });

  it('refuses a Teredo address whose server or client is private, via the embedded check', () => {
    // 2001:0:a00:1:: names Teredo server 10.0.0.1; the client part ~(127.0.0.1).
    expect(embedded('2001:0:a00:1::80ff:fffe')).toEqual(['10.0.0.1', '127.0.0.1']);
    expect(isForbiddenAddress('2001:0:a00:1::80ff:fffe')).toBe(true);
  });
});
