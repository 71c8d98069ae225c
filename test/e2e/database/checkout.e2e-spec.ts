import { Client, Pool, type PoolClient } from 'pg';
import { checkOut } from '../../../src/database/checkout';
import { until } from '../../utils/until';

/**
 * src/database/checkout.ts: a connection checked out by hand whose backend goes away (here
 * `pg_terminate_backend`, as a restart or a failover would) must not end the process. pg-pool
 * listens for errors on idle connections only; without checkOut's listener the `error` event of
 * such a connection is unhandled, which Jest reports as a failure of the test and Node as a crash.
 */
describe('checkOut', () => {
  let pool: Pool;
  let admin: Client;

  beforeAll(async () => {
    pool = new Pool({ connectionString: process.env.TEST_DATABASE_URL, max: 2 });
    admin = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.end();
    await pool.end();
  });

  const pidOf = async (client: PoolClient) =>
    (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
  const terminate = (pid: number) => admin.query('SELECT pg_terminate_backend($1)', [pid]);

  it('an idle checked-out connection whose backend ends: onError, then discarded at release', async () => {
    for (let i = 0; i < 3; i++) {
      const errors: Error[] = [];
      const client = await checkOut(pool, (error) => errors.push(error));
      await terminate(await pidOf(client));
      await until('the error of the lost connection', async () => errors.length > 0, 10_000);
      expect(errors[0].message).toMatch(/terminat/);
      client.release(); // the caller says nothing of the loss: the connection is discarded anyway
      expect(pool.totalCount).toBe(0);
    }
    const client = await checkOut(pool);
    expect((await client.query('SELECT 1 AS one')).rows[0].one).toBe(1);
    client.release();
    expect(pool.idleCount).toBe(1); // a healthy connection goes back to the pool
  });

  it('a query running when its backend ends fails with the error; the pool goes on', async () => {
    const client = await checkOut(pool);
    const pid = await pidOf(client);
    const running = client.query('SELECT pg_sleep(10)');
    await new Promise((done) => setTimeout(done, 200));
    await terminate(pid);
    await expect(running).rejects.toThrow(/terminat/);
    await new Promise((done) => setTimeout(done, 200)); // the socket's end comes after the error
    client.release();
    const next = await checkOut(pool);
    expect(await pidOf(next)).not.toBe(pid);
    next.release();
  });
});
