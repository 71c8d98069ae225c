import { Pool, type PoolConfig } from 'pg';
import { checkOut } from './checkout';

/**
 * A `pg` pool of its own beside TypeORM's, for statements whose settings must reach no other
 * query (the webhook engine's planner settings, webhooks/engine/engine-connection.ts). Its
 * statements are unnamed and their settings transaction-scoped, so it works through PgBouncer in
 * transaction mode as the main pool does.
 */
export class OwnPool {
  private readonly pool: Pool;

  /** `onIdleError`: an idle connection that breaks is dropped by the pool; the next statement opens another. */
  constructor(options: PoolConfig, onIdleError: (error: Error) => void) {
    this.pool = new Pool(options);
    this.pool.on('error', onIdleError);
  }

  /**
   * `text` in a transaction of its own opened by `begin` (`BEGIN` and its `SET LOCAL`s, one round
   * trip), committed; rows as arrays.
   */
  async inTransaction(begin: string, text: string, values: unknown[]): Promise<unknown[][]> {
    const client = await checkOut(this.pool);
    let broken: Error | undefined;
    try {
      await client.query(begin);
      const { rows } = await client.query<unknown[]>({ text, values, rowMode: 'array' });
      await client.query('COMMIT');
      return rows;
    } catch (error) {
      // A failed statement leaves the transaction aborted: roll back, or drop the connection.
      await client.query('ROLLBACK').catch((rollback: Error) => (broken = rollback));
      throw error;
    } finally {
      client.release(broken);
    }
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}
