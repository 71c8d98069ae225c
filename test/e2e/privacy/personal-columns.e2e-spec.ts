import { Client } from 'pg';
import {
  NOT_PERSONAL,
  PERSONAL_COLUMNS,
  PERSONAL_NAME,
} from '../../../src/privacy/personal-columns';

/**
 * docs/privacy.md: every column that may hold personal data says how erasure handles it. Reads
 * the migrated schema's catalog: a text, jsonb or inet column whose name looks personal, and
 * every jsonb and inet column whatever its name, must be in PERSONAL_COLUMNS (with how it is
 * erased) or NOT_PERSONAL (with why), so a new column cannot slip past erasure.
 */
describe('personal columns', () => {
  let columns: { name: string; type: string }[];

  beforeAll(async () => {
    const db = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query<{ name: string; type: string }>(
        `SELECT c.table_name || '.' || c.column_name AS name, c.data_type AS type
           FROM information_schema.columns c
           JOIN information_schema.tables t
             ON t.table_schema = c.table_schema AND t.table_name = c.table_name
          WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
            AND c.data_type IN ('text', 'jsonb', 'json', 'inet', 'character varying')
            AND c.table_name NOT IN ('migrations')
          ORDER BY 1`,
      );
      columns = rows;
    } finally {
      await db.end();
    }
  });

  const mayBePersonal = (c: { name: string; type: string }) =>
    PERSONAL_NAME.test(c.name.split('.')[1]) || ['jsonb', 'json', 'inet'].includes(c.type);

  it('covers every column that may hold personal data', () => {
    const uncovered = columns
      .filter(mayBePersonal)
      .map((c) => c.name)
      .filter((name) => !(name in PERSONAL_COLUMNS) && !(name in NOT_PERSONAL));
    expect(uncovered).toEqual([]);
  });

  it('names only columns that exist, each in one list, each with its reason', () => {
    const existing = new Set(columns.map((c) => c.name));
    const listed = [...Object.keys(PERSONAL_COLUMNS), ...Object.keys(NOT_PERSONAL)];
    expect(listed.filter((name) => !existing.has(name))).toEqual([]);
    expect(Object.keys(PERSONAL_COLUMNS).filter((name) => name in NOT_PERSONAL)).toEqual([]);
    expect(
      Object.values({ ...PERSONAL_COLUMNS, ...NOT_PERSONAL }).filter((why) => !why.trim()),
    ).toEqual([]);
  });

  it('would fail for a new personal column', () => {
    const added = { name: 'leads.customer_address', type: 'text' };
    expect(mayBePersonal(added)).toBe(true);
    expect(added.name in PERSONAL_COLUMNS || added.name in NOT_PERSONAL).toBe(false);
    expect(mayBePersonal({ name: 'members.depth_label', type: 'text' })).toBe(false);
    expect(mayBePersonal({ name: 'stripe_customers.client_ip', type: 'inet' })).toBe(true);
  });
});
