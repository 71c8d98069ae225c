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
  private readonly table: string;
  /** `select`'s lists, made once per alias and prefix (hot paths ask on every request). */
  private readonly selects = new Map<string, string>();

  constructor(dataSource: DataSource, entity: EntityTarget<T>) {
    const metadata = dataSource.getMetadata(entity);
    if (metadata.embeddeds.length)
      throw new Error(`${metadata.name}: embedded columns unsupported`);
    this.columns = metadata.columns;
    this.create = () => metadata.create() as T;
    this.table = metadata.tableName;
  }

  /**
   * `a.col, a.col2, …` for every column, in entity order; with `prefix`, each named
   * `"<prefix>col"` (two entities in one row: read each back with `from(row, prefix)`).
   */
  select(alias: string, prefix = ''): string {
    const key = `${alias}\0${prefix}`;
    let list = this.selects.get(key);
    if (list === undefined) {
      list = this.columns
        .map(
          (c) => `${alias}."${c.databaseName}"${prefix ? ` AS "${prefix}${c.databaseName}"` : ''}`,
        )
        .join(', ');
      this.selects.set(key, list);
    }
    return list;
  }

  /**
   * `INSERT INTO <table> (every column) VALUES (…), …` with its parameters, through the columns'
   * transformers (json as text); an `undefined` property is the column's DEFAULT, or NULL.
   */
  insert(entities: readonly T[]): { sql: string; params: unknown[] } {
    const params: unknown[] = [];
    const tuples = entities.map((entity) => {
      const values = this.columns.map((column) => {
        let value = (entity as Record<string, unknown>)[column.propertyName];
        if (value === undefined && column.default !== undefined) return 'DEFAULT';
        const transformer = column.transformer;
        if (transformer && !Array.isArray(transformer)) value = transformer.to(value);
        if (value != null && (column.type === 'jsonb' || column.type === 'json'))
          value = JSON.stringify(value);
        params.push(value ?? null);
        return `$${params.length}`;
      });
      return `(${values.join(', ')})`;
    });
    const names = this.columns.map((c) => `"${c.databaseName}"`).join(', ');
    return { sql: `INSERT INTO "${this.table}" (${names}) VALUES ${tuples.join(', ')}`, params };
  }

  from(row: Record<string, unknown>, prefix = ''): T {
    const entity = this.create();
    for (const column of this.columns) {
      const value = row[prefix + column.databaseName];
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
