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
