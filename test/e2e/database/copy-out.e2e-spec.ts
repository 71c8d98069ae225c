import type { Pool } from 'pg';
import { rawPool } from '../../../src/database/raw-pool';
import type { Readable } from 'node:stream';
import { DataSource } from 'typeorm';
import { copyOut, withLiterals } from '../../../src/database/copy-out';

/**
 * src/database/copy-out.ts, behind every CSV download: a copy read to the end gives its connection
 * back, and a failed or abandoned one discards it, so neither leaks a connection. The pool holds
 * two connections, so a leak shows as a hang within three downloads.
 */
describe('copyOut', () => {
  let dataSource: DataSource;
  let pool: Pool;

  beforeAll(async () => {
    dataSource = new DataSource({
      type: 'postgres',
      url: process.env.TEST_DATABASE_URL,
      extra: { max: 2, connectionTimeoutMillis: 5_000 },
    });
    await dataSource.initialize();
    pool = rawPool(dataSource);
  });

  afterAll(() => dataSource.destroy());

  const read = async (stream: Readable) => {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  const closed = (stream: Readable) => new Promise((resolve) => stream.once('close', resolve));
  const checkedOut = () => pool.totalCount - pool.idleCount;

  it('streams the rows, and gives the connection back at the end, download after download', async () => {
    for (let i = 0; i < 6; i++) {
      const text = await read(
        await copyOut(
          dataSource,
          `COPY (SELECT n, n * 2 FROM generate_series(1, 3) n) TO STDOUT WITH (FORMAT csv)`,
        ),
      );
      expect(text).toBe('1,2\n2,4\n3,6\n');
    }
    expect(checkedOut()).toBe(0);
  });

  it('discards the connection of a copy whose reader went away, and the pool goes on', async () => {
    for (let i = 0; i < 6; i++) {
      const stream = await copyOut(
        dataSource,
        `COPY (SELECT repeat('x', 1000) FROM generate_series(1, 1000000)) TO STDOUT`,
      );
      await new Promise((resolve) => stream.once('data', resolve));
      const done = closed(stream);
      stream.destroy();
      await done;
      expect(checkedOut()).toBe(0);
    }
    expect((await dataSource.query('SELECT 1 AS one'))[0].one).toBe(1);
  });

  it('gives a failed copy its error and the pool its connection back', async () => {
    for (let i = 0; i < 6; i++) {
      const stream = await copyOut(dataSource, `COPY (SELECT 1 / 0) TO STDOUT`);
      await expect(read(stream)).rejects.toThrow(/division by zero/);
      expect(checkedOut()).toBe(0);
    }
    expect((await dataSource.query('SELECT 2 AS two'))[0].two).toBe(2);
  });

  it('puts values in as quoted literals, never reading a placeholder inside a value', async () => {
    const values = [`o'brien \\ $2`, '$1'];
    const sql = withLiterals('SELECT $1::text AS a, $2::text AS b', values);
    expect(await dataSource.query(sql)).toEqual([{ a: values[0], b: values[1] }]);
  });
});
