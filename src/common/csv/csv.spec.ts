import { parse } from 'csv-parse/sync';
import { csvText, restoreCsvCell, textCell } from './csv';

const HOSTILE = [
  '=HYPERLINK("http://evil.example","x")',
  '+1+2',
  '-1+2',
  '@SUM(A1:A2)',
  '\t=1',
  '\r=1',
  '\tplain',
  '\rplain',
  '\0x',
  ' =1',
  '  \u00a0+cmd',
  '\u3000=1',
  '\n=1',
  '＝1+1',
  '＋1',
  '－1',
  '＠SUM(1)',
  "'=1",
  "''-2",
];
const PLAIN = ['Olga', 'o@example.org', '', "'quoted", "it's", 'a=b', '1-2', ' x', "'", '{"a":-1}'];

describe('textCell', () => {
  it('quotes every cell a spreadsheet would evaluate, and no other', () => {
    for (const v of HOSTILE) expect([v, textCell(v)]).toEqual([v, `'${v}`]);
    for (const v of PLAIN) expect([v, textCell(v)]).toEqual([v, v]);
  });

  it('is undone exactly by restoreCsvCell, which leaves every other cell as it is', () => {
    for (const v of [...HOSTILE, ...PLAIN]) {
      expect(restoreCsvCell(textCell(v))).toBe(v);
      expect(restoreCsvCell(textCell(textCell(v)))).toBe(textCell(v));
    }
    for (const v of PLAIN) expect(restoreCsvCell(v)).toBe(v);
    // A cell that was never quoted by the writer stays as it came.
    expect(restoreCsvCell('=1')).toBe('=1');
    expect(restoreCsvCell("'x")).toBe("'x");
  });
});

describe('the CSV writers', () => {
  const spec = { columns: ['name', 'amount_kopecks', 'note'], numeric: ['amount_kopecks'] };
  const rows = [
    ['=1+1', '-500', '-note'],
    ['Olga', -7, null],
    ['+7 999', '=2', '@x'],
  ];
  const expected = [
    ['name', 'amount_kopecks', 'note'],
    ["'=1+1", '-500', "'-note"],
    ['Olga', '-7', ''],
    ["'+7 999", "'=2", "'@x"],
  ];

  it('csvText: header, CRLF, text cells quoted, numbers kept', () => {
    const text = csvText(spec, rows);
    expect(text.startsWith('name,amount_kopecks,note\r\n')).toBe(true);
    expect(parse(text)).toEqual(expected);
  });

  it('quotes fields as RFC 4180 does, so a value never starts a new cell', () => {
    const values = ['a,=1', 'say "hi"', 'two\nlines', 'cr\rhere', ',@SUM(1)', '"=1"'];
    const text = csvText({ columns: values.map((_, i) => `c${i}`) }, [values]);
    expect(parse(text)[1]).toEqual(values.map(textCell));
    expect(parse(text)[1]).toEqual([
      'a,=1',
      'say "hi"',
      'two\nlines',
      'cr\rhere',
      ',@SUM(1)',
      '"=1"',
    ]);
  });
});
