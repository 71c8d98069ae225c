import { allowedHostsOf, isAllowedTarget } from './link-target';

/**
 * docs/embedding.md §4's open-redirect rules as a table over the pure function: a website target is
 * an absolute
 * `https:` URL (or `http:` on localhost) whose host is one of the tenant's hosts, written plainly;
 * everything a browser or a URL parser could read as another host is refused.
 */

const TENANT = 'shop.example';
const LINK_DOMAIN = 'links.shop-partner.example';
/** The tenant's allowed origins (one on a non-default port) and its link_domains. */
const HOSTS = allowedHostsOf(
  [`https://${TENANT}`, 'https://admin.shop.example:8443'],
  [LINK_DOMAIN],
);
const WITH_LOCALHOST = allowedHostsOf([`https://${TENANT}`, 'http://localhost:8080'], []);

describe('isAllowedTarget: website targets', () => {
  it.each([
    ['the allowed origin host with path and a bare query key', `https://${TENANT}/path?q`],
    ['the allowed origin host, root', `https://${TENANT}`],
    ['the allowed origin host, trailing slash', `https://${TENANT}/`],
    ['query and fragment', `https://${TENANT}/catalog?item=42&x=a%20b#reviews`],
    ['an upper-case scheme and host (URLs are case-insensitive there)', `HTTPS://SHOP.EXAMPLE/a`],
    ['another port on an allowed host', `https://${TENANT}:9443/a`],
    ['an origin with a port contributes its host', 'https://admin.shop.example:8443/x'],
    ['a link_domains host', `https://${LINK_DOMAIN}/promo/spring`],
  ])('accepts %s', (_label, target) => {
    expect(isAllowedTarget('website', target, HOSTS)).toBe(true);
  });

  it.each([
    ['javascript: URL', 'javascript:alert(1)'],
    ['javascript: URL naming the host', `javascript://${TENANT}/%0Aalert(1)`],
    ['data: URL', 'data:text/html,<script>alert(1)</script>'],
    ['protocol-relative //evil', '//evil.example'],
    ['protocol-relative to the tenant', `//${TENANT}/path`],
    ['a relative path', '/path'],
    ['a foreign https host', 'https://evil.example'],
    ['tenant host as user info', `https://${TENANT}@evil.example`],
    ['tenant host and port as user info', `https://${TENANT}:443@evil.example/`],
    ['user info in front of the tenant host', `https://user:pass@${TENANT}/`],
    ['encoded slash before @', `https://${TENANT}%2F@evil.example`],
    ['tenant host as a sub-domain of evil', `https://${TENANT}.evil.example`],
    ['evil as a sub-domain of the tenant host is another host', `https://evil.${TENANT}/`],
    ['suffix look-alike', `https://not${TENANT}/`],
    ['backslash then @tenant', `https://evil.example\\@${TENANT}`],
    ['backslashes instead of slashes', `https:\\\\evil.example`],
    ['backslash in the path', `https://${TENANT}\\evil.example`],
    ['backslash after the authority', `https://${TENANT}/\\evil.example`],
    ['plain http on a non-localhost host', `http://${TENANT}/`],
    ['ftp', `ftp://${TENANT}/`],
    ['look-alike IDN host (Cyrillic а)', 'https://shop.ex\u0430mple/'],
    ['look-alike IDN host, punycode spelled out', 'https://shop.xn--exmple-4nf/'],
    ['https: without slashes', `https:${TENANT}`],
    ['https: with one slash', `https:/${TENANT}`],
    ['three slashes', `https:///${TENANT}`],
    ['a tab inside the scheme', `ht\ttps://${TENANT}/`],
    ['a newline in the path', `https://${TENANT}/a\nb`],
    ['a NUL byte', `https://${TENANT}/\u0000`],
    ['a space', `https://${TENANT}/a b`],
    ['leading space', ` https://${TENANT}/`],
    ['a trailing dot on the host', `https://${TENANT}./`],
    ['http on localhost when localhost is not allowed', 'http://localhost/x'],
    ['over-long', `https://${TENANT}/${'a'.repeat(2100)}`],
    ['empty', ''],
  ])('refuses %s', (_label, target) => {
    expect(isAllowedTarget('website', target, HOSTS)).toBe(false);
  });

  it('takes http only on localhost, and only when localhost is an allowed host', () => {
    expect(isAllowedTarget('website', 'http://localhost/x?y=1', WITH_LOCALHOST)).toBe(true);
    expect(isAllowedTarget('website', 'http://localhost:3000/x', WITH_LOCALHOST)).toBe(true);
    expect(isAllowedTarget('website', 'https://localhost/x', WITH_LOCALHOST)).toBe(true);
    expect(isAllowedTarget('website', 'http://localhost/x', HOSTS)).toBe(false);
    expect(isAllowedTarget('website', 'http://localhost.evil.example/x', WITH_LOCALHOST)).toBe(
      false,
    );
    expect(isAllowedTarget('website', 'http://127.0.0.1/x', WITH_LOCALHOST)).toBe(false);
    expect(isAllowedTarget('website', `http://${TENANT}/x`, WITH_LOCALHOST)).toBe(false);
  });

  it('allows nothing when the tenant has no hosts', () => {
    expect(isAllowedTarget('website', `https://${TENANT}/`, new Set())).toBe(false);
  });
});

describe('isAllowedTarget: other target types', () => {
  const types = ['offer', 'shop', 'partner', 'storefront'] as const;

  it.each(types)('%s takes ids of ^[A-Za-z0-9_.:-]{1,128}$', (type) => {
    for (const id of ['ofr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T', 'shop:42', 'a.b-c_d', 'x', 'A'.repeat(128)])
      expect(isAllowedTarget(type, id, HOSTS)).toBe(true);
  });

  it.each(types)('%s refuses anything else', (type) => {
    for (const id of [
      '',
      'A'.repeat(129),
      'has space',
      'a/b',
      '../x',
      'a?b',
      'a#b',
      'a%2Fb',
      '<script>',
      'caf\u00e9',
      'x\n',
      `https://${TENANT}/`,
    ])
      expect(isAllowedTarget(type, id, HOSTS)).toBe(false);
  });
});

describe('allowedHostsOf', () => {
  it('is the hosts of the allowed origins (ports dropped) and the link_domains, lower-cased', () => {
    expect(
      [
        ...allowedHostsOf(
          ['https://shop.example', 'http://localhost:8080', 'https://admin.shop.example:8443'],
          ['Links.Example', 'cdn.shop.example'],
        ),
      ].sort(),
    ).toEqual(
      [
        'admin.shop.example',
        'cdn.shop.example',
        'links.example',
        'localhost',
        'shop.example',
      ].sort(),
    );
  });

  it('is empty without origins or domains, and ignores an unparsable origin', () => {
    expect(allowedHostsOf([], []).size).toBe(0);
    expect([...allowedHostsOf(['not a url', 'https://ok.example'], [])]).toEqual(['ok.example']);
  });
});
