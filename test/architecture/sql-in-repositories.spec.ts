import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { databaseUses, mayRunSql } from './sql-uses';

/**
 * One way to reach the database (docs/architecture.md, "Data access"): only a feature's
 * repositories (`*.repository.ts`), `src/database/` and the declared cross-feature reads
 * (`read-model/` folders) run SQL. The lint sees imports, not calls, so this reads the code with
 * the TypeScript parser (comments and string contents are never mistaken for calls) and names
 * every use of the database elsewhere.
 */

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

describe('SQL only in repositories', () => {
  const root = resolve(__dirname, '../..');
  const sources = files(join(root, 'src')).map((path) => relative(root, path).split(sep).join('/'));
  const offenders = new Map<string, string[]>();
  for (const path of sources) {
    if (mayRunSql(path)) continue;
    const uses = databaseUses(path, readFileSync(join(root, path), 'utf8'));
    if (uses.length) offenders.set(path, uses);
  }

  it('sees every way of reaching the database', () => {
    const bad = [
      'await this.tx.manager.query(`DELETE FROM leads WHERE id = $1`, [id]);',
      'const rows = await this.dataSource.query<{ id: string }[]>(sql);',
      'return this.tx.select(`SELECT 1`, []);',
      'const [row] = await tx.select<Row>(sql, params);',
      "const repo = this.dataSource.getRepository('MemberEntity');",
      "return repo.createQueryBuilder('m').getMany();",
      'const pool = (this.dataSource.driver as unknown as { master: Pool }).master;',
      'await client.query({ text, values, rowMode: "array" });',
      "import { from as copyFrom } from 'pg-copy-streams';",
      'const stream = client.query(copyFrom(`COPY t FROM STDIN`));',
      'return copyCsv(this.dataSource, sql, spec);',
      'const out = await copyOut(ds, sql);',
      'const client = await checkOut(rawPool(this.dataSource));',
      "return deleteInBatches(this.tx.manager, 'sessions', 'expires_at < now()', 'id');",
      "import { Pool } from 'pg';\nconst pool = new Pool({ max: 1 });",
    ];
    for (const snippet of bad)
      expect([snippet, databaseUses('x.ts', snippet)]).not.toEqual([snippet, []]);
  });

  it('takes no comment, string, type or other call for a use of the database', () => {
    const good = [
      '// runs this.tx.manager.query(sql) in the repository',
      "const message = 'this.dataSource.getRepository(Entity) and .driver are not called here';",
      'const text = `copyOut(dataSource, sql) and tx.select(sql)`;',
      'const page = Number(req.query.page);',
      'return this.tx.transaction(() => this.repo.insert(row));',
      'const options = select.options; input.select();',
      "import type { Pool, PoolClient } from 'pg';\nlet pool: Pool;",
      "import { escapeLiteral } from 'pg';",
      'const managerName = staff.managerName;',
    ];
    for (const snippet of good)
      expect([snippet, databaseUses('x.ts', snippet)]).toEqual([snippet, []]);
  });

  it('lets repositories, database/ and read models run SQL, and nothing else', () => {
    expect(mayRunSql('src/members/members.repository.ts')).toBe(true);
    expect(mayRunSql('src/database/copy-out.ts')).toBe(true);
    expect(mayRunSql('src/console/read-model/partners.ts')).toBe(true);
    expect(mayRunSql('src/members/members.service.ts')).toBe(false);
    expect(mayRunSql('src/transfer/import-run.ts')).toBe(false);
    expect(mayRunSql('src/members/repository.helpers.ts')).toBe(false);
  });

  it('finds no SQL outside repositories, database/ and read models', () => {
    expect(Object.fromEntries(offenders)).toEqual({});
  });

  it("makes TypeORM's driver outside database/, and COPY streams outside repositories, a lint error", () => {
    const driver =
      "import type { DataSource } from 'typeorm';\nexport const f = (d: DataSource) => d.driver;\n";
    const copy = "import { from } from 'pg-copy-streams';\nexport const f = from;\n";
    const cases = [
      { filePath: 'src/transfer/imports.service.ts', code: driver, refused: true },
      { filePath: 'src/transfer/imports.repository.ts', code: driver, refused: true },
      { filePath: 'src/database/copy-out.ts', code: driver, refused: false },
      { filePath: 'src/transfer/import-run.ts', code: copy, refused: true },
      { filePath: 'src/transfer/imports.repository.ts', code: copy, refused: false },
    ];
    const output = execFileSync(process.execPath, [resolve(__dirname, 'lint-text.mjs')], {
      cwd: root,
      input: JSON.stringify(cases),
      encoding: 'utf8',
    });
    const linted = JSON.parse(output) as { messages: { ruleId: string | null }[] }[];
    expect(
      linted.map((result) => result.messages.some((m) => m.ruleId === 'no-restricted-syntax')),
    ).toEqual(cases.map((c) => c.refused));
  }, 300_000);
});
