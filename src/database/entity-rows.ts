import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';

/**
 * Hot-path reads in constant SQL (`manager.query`) that still answer entities: the SELECT list of
 * an entity's columns and the mapping of raw rows back, through TypeORM's own column metadata and
 * transformers (bigint kopecks included). It skips the query builder and its hydration, which cost
 * ~0.2 ms of CPU per statement (docs/performance.md); everything else keeps using repositories.
 */
export class EntityRows<T extends ObjectLiteral> {
  private readonly columns: readonly ColumnMetadata[];
  private readonly create: () => T;

  constructor(dataSource: DataSource, entity: EntityTarget<T>) {
    const metadata = dataSource.getMetadata(entity);
    if (metadata.embeddeds.length)
      throw new Error(`${metadata.name}: embedded columns unsupported`);
    this.columns = metadata.columns;
    this.create = () => metadata.create() as T;
  }

  /** `a.col, a.col2, …` for every column, in entity order. */
  select(alias: string): string {
    return this.columns.map((c) => `${alias}."${c.databaseName}"`).join(', ');
  }

  from(row: Record<string, unknown>): T {
    const entity = this.create();
    for (const column of this.columns) {
      const value = row[column.databaseName];
      const transformer = column.transformer;
      (entity as Record<string, unknown>)[column.propertyName] =
        transformer && !Array.isArray(transformer) ? transformer.from(value) : value;
    }
    return entity;
  }

  fromAll(rows: Record<string, unknown>[]): T[] {
    return rows.map((row) => this.from(row));
  }
}

/**
 * The total of a list page. A first page that is not full is the whole list, so only a full or
 * later page asks `count` (a statement returning `[{ count }]`).
 */
export async function pageTotal(
  found: number,
  offset: number,
  limit: number,
  count: () => Promise<{ count: number }[]>,
): Promise<number> {
  if (offset === 0 && found < limit) return found;
  const [row] = await count();
  return row.count;
}
