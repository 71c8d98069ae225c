import { fillLinkTemplate, linkTemplateError } from './link-templates';

/**
 * docs/security.md: `{id}` of a link template may sit only where the target id cannot change
 * the site a short link leads to (path, query, fragment), and is encoded for that place.
 */
describe('linkTemplateError', () => {
  it.each([
    ['a path segment', 'https://shop.example/offers/{id}'],
    ['part of a path segment', 'https://shop.example/offers/o-{id}.html'],
    ['a query value', 'https://shop.example/catalog?offer={id}&from=partner'],
    ['a query key', 'https://shop.example/catalog?{id}=1'],
    ['the fragment', 'https://shop.example/catalog#{id}'],
    ['the path right after the host', 'https://shop.example/{id}'],
    ['path and query at once', 'https://shop.example/o/{id}?again={id}'],
    ['http with a port', 'http://localhost:8080/o/{id}'],
    ['upper-case scheme', 'HTTPS://shop.example/o/{id}'],
  ])('accepts {id} in %s: %s', (_label, template) => {
    expect(linkTemplateError(template)).toBeUndefined();
  });

  it.each([
    ['the end of the host', 'https://shop.example{id}'],
    ['the end of the host, then a path', 'https://shop.example{id}/path'],
    ['a sub-domain label', 'https://{id}.shop.example/'],
    ['the whole host', 'https://{id}/offers'],
    ['the port', 'https://shop.example:{id}/'],
    ['user info', 'https://{id}@shop.example/'],
    ['user info with a password', 'https://u:{id}@shop.example/'],
    ['the scheme', '{id}://shop.example/'],
    ['host and path', 'https://shop{id}.example/o/{id}'],
  ])('refuses {id} in %s: %s', (_label, template) => {
    expect(linkTemplateError(template)).toMatch(/only in the path, query or fragment|absolute/);
  });

  it.each([
    ['no {id}', 'https://shop.example/offers/1', /must contain \{id\}/],
    ['javascript:', 'javascript:{id}', /absolute http\(s\) URL/],
    ['relative', '/offers/{id}', /absolute http\(s\) URL/],
    ['protocol-relative', '//shop.example/{id}', /absolute http\(s\) URL/],
    ['ftp', 'ftp://shop.example/{id}', /absolute http\(s\) URL/],
    ['backslashes', 'https:\\\\shop.example\\{id}', /backslashes/],
    ['a backslash after the host', 'https://shop.example\\{id}', /backslashes/],
    ['a space', 'https://shop.example/a b/{id}', /spaces/],
    ['a tab in the scheme', 'ht\ttps://shop.example/{id}', /spaces/],
    ['user info without {id}', 'https://user@shop.example/{id}', /user info/],
    ['no host', 'https:///{id}', /absolute URL|host/],
  ])('refuses %s', (_label, template, message) => {
    expect(linkTemplateError(template)).toMatch(message);
  });
});

describe('fillLinkTemplate', () => {
  it.each([
    [
      'a path segment',
      'https://shop.example/offers/{id}',
      'spring-42',
      'https://shop.example/offers/spring-42',
    ],
    [
      'a path segment, encoded',
      'https://shop.example/offers/{id}',
      'a:b',
      'https://shop.example/offers/a%3Ab',
    ],
    [
      'a query value',
      'https://shop.example/c?offer={id}&x=1',
      'a:b',
      'https://shop.example/c?offer=a%3Ab&x=1',
    ],
    ['the fragment', 'https://shop.example/c#{id}', 'p_7.x', 'https://shop.example/c#p_7.x'],
    [
      'every place',
      'https://shop.example/{id}?o={id}#{id}',
      'x:1',
      'https://shop.example/x%3A1?o=x%3A1#x%3A1',
    ],
  ])('fills {id} in %s', (_label, template, id, expected) => {
    expect(fillLinkTemplate(template, id)).toBe(expected);
  });

  it.each([
    // Whatever the id, the filled URL stays on the template's site.
    ['/', 'https://shop.example/%2F'],
    ['?x=1&ref=forged', 'https://shop.example/%3Fx%3D1%26ref%3Dforged'],
    ['#top', 'https://shop.example/%23top'],
    ['@evil.example', 'https://shop.example/%40evil.example'],
    ['//evil.example', 'https://shop.example/%2F%2Fevil.example'],
    ['\\evil.example', 'https://shop.example/%5Cevil.example'],
  ])('encodes the id %j so it stays data', (id, expected) => {
    const filled = fillLinkTemplate('https://shop.example/{id}', id)!;
    expect(filled).toBe(expected);
    expect(new URL(filled).origin).toBe('https://shop.example');
  });

  it.each([
    ['https://shop.example{id}', '.evil.example'],
    ['https://{id}.shop.example/', 'evil.example/x'],
    ['https://shop.example:{id}/', '8443'],
    ['https://{id}@shop.example/', 'user'],
    // The URL parser skips the extra slashes: the id would become the host.
    ['https:///{id}', 'evil.example'],
  ])(
    'leads nowhere for a template saved before the rule (%s): the landing page instead',
    (template, id) => {
      expect(fillLinkTemplate(template, id)).toBeUndefined();
    },
  );
});
