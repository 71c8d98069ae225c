/**
 * The SQL of a list's filters (console pages, their API twins and CSV links): the read model's
 * readers build their WHERE with it. It names no table; its callers declare theirs.
 */
/** SQL conditions with `$2…` parameters ($1 is the tenant), ANDed together. */
export class Conditions {
  private readonly parts: string[] = [];
  readonly params: string[] = [];

  /** Adds `sql` with `?` standing for `value` (every `?` the same value). */
  add(sql: string, value: string | undefined): this {
    if (value === undefined || value === '') return this;
    this.params.push(value);
    this.parts.push(sql.replace(/\?/g, `$${this.params.length + 1}`));
    return this;
  }

  /** `created_at` of `alias` within the days `from`…`to` (UTC, both inclusive). */
  period(column: string, from?: string, to?: string): this {
    this.add(`${column} >= (?::date)::timestamp AT TIME ZONE 'UTC'`, from);
    return this.add(`${column} < (?::date + 1)::timestamp AT TIME ZONE 'UTC'`, to);
  }

  get sql(): string {
    return this.parts.join(' AND ');
  }
}
