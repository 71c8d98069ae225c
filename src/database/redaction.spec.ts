import { ERASED, redactJson, redactJsonText, redactText, searchable, stringsIn } from './redaction';

describe('redaction', () => {
  it('replaces a value anywhere inside a string, any case, and keeps the rest', () => {
    expect(redactText('Mail Anna@Example.org or anna@example.org', ['anna@example.org'])).toBe(
      `Mail ${ERASED} or ${ERASED}`,
    );
    expect(redactText('price 1.5 (x)', ['1.5 (x)'])).toBe(`price ${ERASED}`);
  });

  it('redacts inside every string of a JSON value, keys included, and leaves numbers alone', () => {
    const doc = {
      contact: { name: 'Olga Smirnova', phones: ['+7999'] },
      amount: 7999,
      'Olga Smirnova': true,
    };
    expect(redactJson(doc, ['Olga Smirnova', '7999'])).toEqual({
      contact: { name: ERASED, phones: [`+${ERASED}`] },
      amount: 7999,
      [ERASED]: true,
    });
  });

  it('keeps a JSON text valid whatever the value holds', () => {
    const value = 'He said "hi" \\ there';
    const text = JSON.stringify({ note: `x ${value} y`, n: 1 });
    expect(JSON.parse(redactJsonText(text, [value]))).toEqual({ note: `x ${ERASED} y`, n: 1 });
    expect(redactJsonText('not json: secret', ['secret'])).toBe(`not json: ${ERASED}`);
  });

  it('searches for values long enough to mean something, once each', () => {
    expect(searchable([' ab ', null, undefined, 'abc', 'abc', ' long value '])).toEqual([
      'abc',
      'long value',
    ]);
    expect(stringsIn({ a: ['x', { b: 'y' }], c: 3 })).toEqual(['x', 'y']);
  });
});
