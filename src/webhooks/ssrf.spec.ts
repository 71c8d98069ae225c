import { isForbiddenAddress } from './ssrf';

/**
 * SPEC 6's refused destinations, written out here (not read from the code under test): a delivery
 * may never connect to these, and a URL whose host resolves to one is refused when it is set.
 */
describe('isForbiddenAddress', () => {
  it.each([
    ['8.8.8.8'],
    ['1.1.1.1'],
    ['93.184.216.34'],
    ['2606:4700:4700::1111'],
    ['2001:4860:4860::8888'],
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
    ['192.167.255.255'],
    ['192.169.0.0'],
    ['198.17.255.255'],
    ['198.20.0.0'],
    ['223.255.255.255'],
    // Just outside the blocked IPv6 ranges.
    ['fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['fec0::1'],
    ['2001::1'],
    ['2003::1'],
    ['64:ff9b:1::a00:1'],
    ['::2'],
  ])('allows the public address %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });

  it.each([
    // 0/8: "this network", the unspecified address included.
    ['0.0.0.0'],
    ['0.255.255.255'],
    // 10/8
    ['10.0.0.0'],
    ['10.0.0.1'],
    ['10.255.255.255'],
    // 100.64/10 (carrier-grade NAT)
    ['100.64.0.0'],
    ['100.127.255.255'],
    // 127/8
    ['127.0.0.1'],
    ['127.255.255.254'],
    // 169.254/16 (link-local, cloud metadata)
    ['169.254.0.0'],
    ['169.254.169.254'],
    ['169.254.255.255'],
    // 172.16/12
    ['172.16.0.0'],
    ['172.31.255.255'],
    // 192.168/16
    ['192.168.0.0'],
    ['192.168.1.1'],
    ['192.168.255.255'],
    // 198.18/15 (benchmarking)
    ['198.18.0.0'],
    ['198.19.255.255'],
    // 224/4 and above: multicast, reserved, broadcast
    ['224.0.0.0'],
    ['224.0.0.1'],
    ['239.255.255.255'],
    ['240.0.0.1'],
    ['255.255.255.255'],
    // IPv6 unspecified and loopback, in several spellings
    ['::'],
    ['::1'],
    ['0:0:0:0:0:0:0:1'],
    ['0000:0000:0000:0000:0000:0000:0000:0000'],
    // fc00::/7 (unique local)
    ['fc00::1'],
    ['fd12:3456:789a::1'],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    // fe80::/10 (link-local)
    ['fe80::1'],
    ['febf:ffff::1'],
    // IPv6 multicast
    ['ff02::1'],
    // IPv4-mapped forms (private and public IPv4 alike), dotted, hex and upper case
    ['::ffff:10.0.0.1'],
    ['::ffff:127.0.0.1'],
    ['::ffff:7f00:1'],
    ['::FFFF:169.254.169.254'],
    ['::ffff:8.8.8.8'],
    // NAT64 (64:ff9b::/96)
    ['64:ff9b::a00:1'],
    ['64:ff9b::10.0.0.1'],
    ['64:ff9b::808:808'],
    // 6to4 (2002::/16)
    ['2002::1'],
    ['2002:c0a8:101::1'],
    ['2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ])('refuses the blocked address %s', (address) => {
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
  ])('refuses %j, which is not an IP literal', (input) => {
    expect(isForbiddenAddress(input)).toBe(true);
  });
});
