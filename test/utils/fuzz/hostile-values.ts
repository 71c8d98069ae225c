/**
 * The fuzz battery's hostile values: control characters, unpaired surrogates, wrong types, huge
 * strings, deep nesting, numbers out of range, and tenant B's real ids.
 */
import fc from 'fast-check';
import { ulid } from 'ulid';
import type { Op, Target } from './openapi-doc';
import { type World, idFor, idsOf } from './world';

/** A JSON text spliced in where a body holds this value (too deep to build as an object). */
export class RawJson {
  constructor(readonly text: string) {}
}
/** Leave the field out. */
export const ABSENT = Symbol('absent');

export const nested = (levels: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = { n: value };
  return value;
};
export const deepArray = (levels: number) =>
  new RawJson(`${'['.repeat(levels)}1${']'.repeat(levels)}`);
export const randomId = (prefix: string) => `${prefix}_${ulid()}`;

export const HOSTILE_TEXT: string[] = [
  'a\u0000b',
  '\u0000',
  'x\u0001y',
  'x\u001b[2Jy',
  'x\u007fy',
  'x\u0085y',
  '\ud800',
  'a\udfffb',
  '',
  ' ',
  'Мария 🌷',
  "' OR '1'='1",
  '../../etc/passwd',
  '%00',
  '\\',
  '__proto__',
  'null',
  'a'.repeat(300),
  'a'.repeat(5000),
];
export const HOSTILE_NUMBERS: unknown[] = [
  -1,
  0,
  1.5,
  2 ** 31,
  2 ** 53 + 2,
  1e21,
  -1e308,
  1e308,
  '1',
  '-1',
];
export const HOSTILE_JSON: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  2 ** 53 + 2,
  1e308,
  [],
  ['x'],
  [null],
  {},
  { ['__proto__']: { polluted: true } },
  { constructor: { prototype: 1 } },
  nested(40),
  deepArray(5000),
  'a'.repeat(70_000),
];
export const HOSTILE_QUERY: string[] = [
  '-1',
  '0',
  '1.5',
  '1e3',
  'NaN',
  '99999999999999999999',
  '01',
];

/** The fixed sweep: the values every target gets. */
export function coreValues(target: Target, b: World, op: Op): unknown[] {
  const other = idFor(b, target.name, op.path);
  const ids = [other, randomId(target.name.split('_')[0] || 'x')].filter((v) => v !== undefined);
  switch (target.in) {
    case 'path':
      return ['a\u0000b', 'x\u0001y', '\ud800', 'a'.repeat(300), '..', '%2e%2e', ...ids];
    case 'header':
      return ['', 'a'.repeat(300), 'a'.repeat(8000), 'null', "' OR '1'='1", ...ids];
    case 'query': {
      const numbers = ['number', 'integer'].includes(target.type)
        ? ['0', '99999999999999999999', '1e21', '9007199254740993']
        : [];
      return [
        'a\u0000b',
        'x\u0001y',
        '\ud800',
        'a'.repeat(3000),
        ['a', 'b'],
        '-1',
        '1.5',
        ...numbers,
        ...ids,
      ];
    }
    case 'form':
      if (!target.name) return ['a=\u0000', new RawJson('{"a":1}'), 'x'.repeat(70_000)];
      return ['a\u0000b', 'x\u0001y', ['a', 'b'], 'a'.repeat(70_000), ABSENT, '', ...ids];
    case 'body':
      if (!target.name) {
        return [
          new RawJson('[]'),
          new RawJson('null'),
          new RawJson('"x"'),
          nested(40),
          deepArray(10_000),
        ];
      }
      return [
        'a\u0000b',
        'x\u0001y',
        '\ud800',
        null,
        target.type === 'string' ? 12 : 'x',
        ['x'],
        { a: 1 },
        target.type === 'string' ? 'a'.repeat(70_000) : 2 ** 53 + 2,
        deepArray(5000),
        ABSENT,
        ...ids,
      ];
  }
}

/** The random part: any value of any kind, ids of both tenants included. */
export function valueArbitrary(a: World, b: World): fc.Arbitrary<unknown> {
  // Not A's own key: revoking it (DELETE …/keys/{key_id}) would lock every later Federation
  // request out, and the rest of the run would test nothing but 401s.
  const ids = [...idsOf(a).filter((id) => id !== a.keyId), ...idsOf(b)];
  return fc.oneof(
    fc.constantFrom(...HOSTILE_TEXT),
    fc.constantFrom(...HOSTILE_NUMBERS),
    fc.constantFrom(...HOSTILE_JSON),
    fc.constantFrom(...HOSTILE_QUERY),
    fc.constantFrom(...ids),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.integer(),
    fc.double(),
    fc.jsonValue({ maxDepth: 3 }),
    fc.constant(ABSENT),
  );
}
