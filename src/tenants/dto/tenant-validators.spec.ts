import { isExactOrigin, isHostName } from './tenant-validators';

describe('isExactOrigin', () => {
  it.each([
    'https://a.example',
    'http://a.example',
    'https://shop.a.example',
    'https://a.example:8443',
    'http://localhost:3000',
    'http://127.0.0.1:8080',
    'https://xn--80ak6aa92e.example',
  ])('accepts %s', (origin) => {
    expect(isExactOrigin(origin)).toBe(true);
  });

  it.each([
    ['trailing slash', 'https://a.example/'],
    ['path', 'https://a.example/path'],
    ['query', 'https://a.example?x=1'],
    ['empty query', 'https://a.example?'],
    ['fragment', 'https://a.example#top'],
    ['default https port spelled out', 'https://a.example:443'],
    ['default http port spelled out', 'http://a.example:80'],
    ['upper-case host', 'https://A.example'],
    ['upper-case scheme', 'HTTPS://a.example'],
    ['user info', 'https://user@a.example'],
    ['user and password', 'https://user:pw@a.example'],
    ['javascript scheme', 'javascript:alert(1)'],
    ['data scheme', 'data:text/html,hi'],
    ['file scheme', 'file:///etc/passwd'],
    ['ftp scheme', 'ftp://a.example'],
    ['ws scheme', 'wss://a.example'],
    ['no scheme', 'a.example'],
    ['protocol-relative', '//a.example'],
    ['leading space', ' https://a.example'],
    ['trailing space', 'https://a.example '],
    ['trailing newline', 'https://a.example\n'],
    ['unicode host (browsers send punycode)', 'https://ä.example'],
    ['backslash', 'https:\\\\a.example'],
    ['empty string', ''],
    ['the string null', 'null'],
  ])('refuses %s: %j', (_label, origin) => {
    expect(isExactOrigin(origin)).toBe(false);
  });

  it.each([undefined, null, 42, {}, ['https://a.example'], new URL('https://a.example')])(
    'refuses the non-string %p',
    (value) => {
      expect(isExactOrigin(value)).toBe(false);
    },
  );
});

describe('isHostName', () => {
  it.each([
    'a.example',
    'shop.a.example',
    'localhost',
    'a-b.example',
    'xn--80ak6aa92e.example',
    '1.example',
    `${'a'.repeat(63)}.example`,
  ])('accepts %s', (host) => {
    expect(isHostName(host)).toBe(true);
  });

  it.each([
    ['upper-case', 'A.example'],
    ['with scheme', 'https://a.example'],
    ['with port', 'a.example:443'],
    ['with path', 'a.example/x'],
    ['trailing slash', 'a.example/'],
    ['leading hyphen', '-a.example'],
    ['trailing hyphen in label', 'a-.example'],
    ['empty label', 'a..example'],
    ['leading dot', '.a.example'],
    ['trailing dot', 'a.example.'],
    ['underscore', 'a_b.example'],
    ['space', 'a example'],
    ['unicode', 'ä.example'],
    ['label of 64 characters', `${'a'.repeat(64)}.example`],
    ['longer than 253 characters', Array<string>(64).fill('abc').join('.')],
    ['empty string', ''],
    ['wildcard', '*.a.example'],
    ['user info', 'user@a.example'],
  ])('refuses %s: %j', (_label, host) => {
    expect(isHostName(host)).toBe(false);
  });

  it.each([undefined, null, 42, {}, ['a.example']])('refuses the non-string %p', (value) => {
    expect(isHostName(value)).toBe(false);
  });
});
