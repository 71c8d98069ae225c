import { readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { sourceFiles, tableOwners, WRITE } from './tables';

/**
 * The console reads other features' tables only through its read model (docs/architecture.md,
 * "Module boundaries"): its SQL is in `src/console/read-model/` (or a `*.repository.ts` of its
 * own), the page frame `src/pages/` has none, and each read-model class declares the tables it
 * reads (`static readonly tables = [...] as const`). This reads the sources and fails when
 * (a) a console or frame file elsewhere runs SQL, (b) a read-model file names a table its
 * classes do not declare, or declares one the schema does not have, (c) a read-model file writes
 * a table of another feature.
 */

/** What running SQL looks like in TypeScript: the driver's and TypeORM's calls, SQL statements. */
const SQL_SIGNS: [string, RegExp][] = [
  ['a query call', /\.query\s*\(/],
  ['a query builder', /\bcreateQueryBuilder\b/],
  ['a TypeORM repository', /\bgetRepository\s*\(|@InjectRepository\b/],
  ['the transaction host', /\bTransactionHost\b/],
  ['a COPY of rows', /\bcopy(?:Csv|Out)\s*\(/],
  ['SQL conditions', /\bnew\s+Conditions\s*\(/],
  ['a SELECT', /\bSELECT\b[\s\S]{0,400}?\bFROM\b/],
  ['a write', /\b(?:INSERT\s+INTO|DELETE\s+FROM|UPDATE\s+"?[a-z_]+"?\s+SET)\b/],
];

/** Where SQL may be in the console. */
const mayRunSql = (path: string) =>
  path.includes(`${sep}read-model${sep}`) || path.endsWith('.repository.ts');

/** The SQL signs in `text`, by name. */
export const sqlSigns = (text: string) =>
  SQL_SIGNS.filter(([, re]) => re.test(text)).map(([name]) => name);

/** The tables the SQL of `text` reads or writes: after FROM, JOIN, INTO, UPDATE; not a CTE's name. */
export function namedTables(text: string): Set<string> {
  const ctes = new Set(
    [
      ...text.matchAll(
        /(?:\bWITH(?:\s+RECURSIVE)?|,)\s+([a-z_][a-z0-9_]*)\s*(?:\([^)]*\)\s*)?AS\s*\(/g,
      ),
    ].map((m) => m[1]),
  );
  const tables = [
    ...text.matchAll(/\b(?:FROM|JOIN|INTO|UPDATE)\s+"?([a-z_][a-z0-9_]*)(?![a-z0-9_])"?(?!\s*\()/g),
  ]
    .map((m) => m[1])
    .filter((t) => !ctes.has(t));
  return new Set(tables);
}

/** The tables the classes of `text` declare (`static readonly tables = [...]`). */
export function declaredTables(text: string): Set<string> {
  const lists = [...text.matchAll(/static\s+readonly\s+tables\s*=\s*\[([^\]]*)\]/g)];
  return new Set(
    lists.flatMap((m) => [...m[1].matchAll(/'([a-z_][a-z0-9_]*)'/g)].map((t) => t[1])),
  );
}

describe('the console read model', () => {
  const root = resolve(__dirname, '../..');
  const src = join(root, 'src');
  const all = sourceFiles(src);
  const owners = tableOwners(src, all);
  const under = (folder: string) => all.filter((p) => p.startsWith(join(src, folder) + sep));
  const readModel = under(join('console', 'read-model'));
  const text = (path: string) => readFileSync(path, 'utf8');
  const rel = (path: string) => relative(root, path);

  /** (b) and (c) for one file: the problems, one line each. */
  const readModelProblems = (path: string, code: string) => {
    const declared = declaredTables(code);
    return [
      ...[...namedTables(code)]
        .filter((t) => !declared.has(t))
        .map((t) => `${path}: names ${t}, which its class does not declare`),
      ...[...declared]
        .filter((t) => !owners.has(t))
        .map((t) => `${path}: declares ${t}, a table no feature owns`),
      ...[...code.matchAll(WRITE)]
        .map((m) => m[1])
        .filter((t) => owners.get(t) !== 'console')
        .map((t) => `${path}: writes ${t} (${owners.get(t) ?? 'unknown'}'s)`),
    ];
  };

  it('sees SQL, undeclared tables and foreign writes in deliberate bad snippets', () => {
    const query = 'await this.tx.query(`SELECT id FROM members WHERE tenant_id = $1`, [t]);';
    expect(sqlSigns(query)).toEqual(['a query call', 'a SELECT']);
    expect(sqlSigns("const where = new Conditions().add('c.status = ?', s);")).toEqual([
      'SQL conditions',
    ]);
    expect(sqlSigns('<p>{t.selectFromList}</p>')).toEqual([]);

    const reader = `export class BadReader {
      static readonly tables = ['members'] as const;
      read() { return sql\`WITH RECURSIVE chain (id) AS (SELECT id FROM members)
        SELECT * FROM chain JOIN leads l ON true CROSS JOIN generate_series(1, 2) AS g
        WHERE x = substring(y FROM '^a')\`; }
      write() { return sql\`UPDATE members SET clicks_count = 0\`; }
    }`;
    expect(readModelProblems('bad.reader.ts', reader)).toEqual([
      'bad.reader.ts: names leads, which its class does not declare',
      "bad.reader.ts: writes members (members's)",
    ]);
    expect(
      readModelProblems('x.ts', "static readonly tables = ['no_such_table'] as const;"),
    ).toEqual(['x.ts: declares no_such_table, a table no feature owns']);
  });

  it('has read-model classes, each declaring what it reads', () => {
    const declaring = readModel.filter((p) => declaredTables(text(p)).size > 0);
    expect(declaring.map(rel)).toEqual(
      expect.arrayContaining([
        'src/console/read-model/members.reader.ts',
        'src/console/read-model/stats.reader.ts',
      ]),
    );
  });

  it('has no SQL in the console outside read-model/, nor in the page frame', () => {
    const offenders = [...under('console'), ...under('pages')]
      .filter((p) => !mayRunSql(p))
      .flatMap((p) => sqlSigns(text(p)).map((sign) => `${rel(p)}: ${sign}`));
    expect(offenders).toEqual([]);
  });

  it('names only declared tables in read-model/ and writes none of another feature', () => {
    expect(readModel.flatMap((p) => readModelProblems(rel(p), text(p)))).toEqual([]);
  });
});
