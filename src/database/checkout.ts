import type { Pool, PoolClient } from 'pg';

/**
 * A connection of `pool`, checked out with an `error` listener until it is released. pg-pool
 * listens for errors on idle connections only: a checked-out one whose backend goes away (a
 * restart, a failover, `pg_terminate_backend`) emits `error` with nobody listening, and that ends
 * the process. Here the error goes to `onError` (when given; a query running on the connection
 * fails with it anyway), and the connection is discarded at its release, whatever the caller
 * passes. Every connection the service takes from a pool by hand comes through here.
 */
export async function checkOut(pool: Pool, onError?: (error: Error) => void): Promise<PoolClient> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const listener = (error: Error) => {
    lost ??= error;
    onError?.(error);
  };
  client.on('error', listener);
  const release = client.release;
  client.release = (destroy?: Error | boolean) => {
    client.removeListener('error', listener);
    release.call(client, lost ?? destroy);
  };
  return client;
}
