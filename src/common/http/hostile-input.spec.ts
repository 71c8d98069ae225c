import fc from 'fast-check';
import { bodyProblem, MAX_JSON_DEPTH, requestTargetProblem, textProblem } from './hostile-input';

describe('hostile input rules', () => {
  describe('textProblem', () => {
    it.each(['\u0000', 'a\u0001', '\u001b[2J', '\u007f', '\u0085', '\u009f'])(
      'refuses the control character in %j',
      (text) => expect(textProblem(text)).toBe('must not contain control characters'),
    );

    it.each(['\ud800', 'a\udc00', '\udbff\u0041'])('refuses the unpaired surrogate in %j', (text) =>
      expect(textProblem(text)).toBe('must not contain unpaired UTF-16 surrogates'),
    );

    it.each(['', 'Maria Ivanova', 'line 1\r\nline 2\tend', 'Мария 🌷', '\u00a0', '\u2028'])(
      'accepts %j',
      (text) => expect(textProblem(text)).toBeUndefined(),
    );
  });

  describe('requestTargetProblem', () => {
    it.each([
      ['/admin/v1/tenants/x%00', 'path'],
      ['/embed/v1/data/cabinet/m?tenant=%00', 'tenant'],
      ['/a/%ED%A0%80', 'path'],
      ['/a/%FF', 'path'],
      ['/a/%E0%A4%A', 'path'],
      ['/a/%C2%85', 'path'],
      [`/a/${'x'.repeat(257)}`, 'path'],
      [`/a?q=${'x'.repeat(2049)}`, 'q'],
      ['/a?x%01=1', 'query'],
    ])('refuses %s, naming %s', (url, field) => {
      expect(requestTargetProblem(url)?.field).toBe(field);
    });

    it.each([
      '/',
      '/embed/v1/data/cabinet/mbr_01M89J99WK1K4NEMZGJCW2K632?tenant=acme&locale=ru-RU',
      `/s/Ab3dE6gH`,
      `/a/${encodeURIComponent('мбр 🌷')}?q=${encodeURIComponent('a b&c')}`,
      `/a/${'x'.repeat(256)}?q=${'y'.repeat(2048)}`,
      '/a?flag&q=a+b',
    ])('accepts %s', (url) => expect(requestTargetProblem(url)).toBeUndefined());

    it('never throws, whatever the target', () => {
      fc.assert(
        fc.property(fc.string({ unit: 'binary' }), (url) => {
          requestTargetProblem(url);
          requestTargetProblem(`/${url}?${url}=${url}`);
        }),
      );
    });
  });

  describe('bodyProblem', () => {
    it('names the first offending field in document order', () => {
      expect(bodyProblem({ a: 'ok', b: { c: ['x', 'y\u0000'] }, d: '\u0001' })).toEqual({
        field: 'b.c.1',
        message: 'must not contain control characters',
      });
      expect(bodyProblem({ m: { 'k\u0000': 1 } })).toEqual({
        field: 'm',
        message: 'has a key that must not contain control characters',
      });
      expect(bodyProblem(JSON.parse('{"a":{"__proto__":{"x":1}}}'))).toEqual({
        field: 'a.__proto__',
        message: 'uses a reserved key (__proto__, constructor, prototype)',
      });
    });

    it(`takes ${MAX_JSON_DEPTH} levels and refuses one more, without recursion`, () => {
      const nest = (levels: number) => {
        let value: unknown = 1;
        for (let i = 0; i < levels; i++) value = [value];
        return { x: value };
      };
      expect(bodyProblem(nest(MAX_JSON_DEPTH - 2))).toBeUndefined();
      expect(bodyProblem(nest(MAX_JSON_DEPTH))?.message).toMatch(/nested deeper/);
      expect(bodyProblem(JSON.parse(`{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`))).toEqual(
        expect.objectContaining({ message: `is nested deeper than ${MAX_JSON_DEPTH} levels` }),
      );
    });

    it('accepts any JSON whose text is clean, and refuses it once a control character is in', () => {
      // JSON.stringify writes C0 controls and lone surrogates as escapes, DEL and C1 as they are.
      const dirty = /\\u00[01]|\\[bf]|\\ud[89a-f]|[\u007f-\u009f]/i;
      const clean = fc.jsonValue({ maxDepth: 5 }).filter((v) => !dirty.test(JSON.stringify(v)));
      fc.assert(
        fc.property(clean, (value) => {
          const body = { value };
          const reserved = /"(__proto__|constructor|prototype)":/.test(JSON.stringify(body));
          if (!reserved) expect(bodyProblem(body)).toBeUndefined();
          expect(bodyProblem({ ...body, bad: `x\u0000` })?.field).toBeDefined();
        }),
      );
    });
  });
});
