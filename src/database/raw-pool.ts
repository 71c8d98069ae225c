import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * The `pg` pool under a DataSource: the one place that reaches into TypeORM's driver. The code
 * that needs a connection of its own (copyOut, the imports) or a statement without TypeORM's
 * query runner (TransactionHost.select) takes the pool here, and only database/ and the
 * repositories use it (docs/architecture.md, "Data access").
 */
export function rawPool(dataSource: DataSource): Pool {
  const driver = dataSource.driver;
  if (!(driver instanceof PostgresDriver)) throw new Error('the service runs on PostgreSQL only');
  return driver.master as Pool;
}
