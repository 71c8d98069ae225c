import type { EntityManager } from 'typeorm';

/** Rows deleted per statement, so a first run on a large backlog never holds long locks. */
export const DELETE_BATCH = 5000;

/**
 * Deletes the rows of `table` matching `where`, in batches by its primary key `key`, each batch
 * its own statement; answers how many went. Each feature clears its own expired rows with it
 * (housekeeping runs them, docs/architecture.md "Module boundaries").
 */
export async function deleteInBatches(
  manager: EntityManager,
  table: string,
  where: string,
  key: string,
): Promise<number> {
  let total = 0;
  for (;;) {
    const [, deleted]: [unknown, number] = await manager.query(
      `DELETE FROM ${table} WHERE (${key}) IN (SELECT ${key} FROM ${table} WHERE ${where} LIMIT ${DELETE_BATCH})`,
    );
    total += deleted;
    if (deleted < DELETE_BATCH) return total;
  }
}

/**
 * Runs `sql`, a delete of at most DELETE_BATCH rows of the tenant `$1` that answers
 * `count(*)::int AS deleted`, tenant by tenant and again while a batch comes back full; `params`
 * are `$2`…; answers how many went. For deletes a plain key list cannot say (joins, several
 * tables in one statement), e.g. the retention of events and their webhook deliveries.
 */
export async function deletePerTenantInBatches(
  manager: EntityManager,
  sql: string,
  params: unknown[],
): Promise<number> {
  const tenants: { id: string }[] = await manager.query(`SELECT id FROM tenants`);
  let total = 0;
  for (const { id } of tenants) {
    for (;;) {
      const [{ deleted }]: { deleted: number }[] = await manager.query(sql, [id, ...params]);
      total += deleted;
      if (deleted < DELETE_BATCH) break;
    }
  }
  return total;
}
