import { TooManyImportsError } from './transfer.errors';

/**
 * How many member imports this process runs at once, in all and per tenant (IMPORT_CONCURRENCY,
 * IMPORT_TENANT_CONCURRENCY). Each running import holds one pool connection from the start of its
 * upload to its final status, so the process-wide limit stays below the pool size and the other
 * requests always find a connection. A slot is taken before the body is read or any connection
 * is asked for; beyond the limit the import is refused at once (429 too_many_imports).
 */
export class ImportSlots {
  private total = 0;
  private readonly byTenant = new Map<string, number>();

  constructor(
    private readonly concurrency: number,
    private readonly tenantConcurrency: number,
  ) {}

  /** Takes a slot for `tenantId` or throws TooManyImportsError; answers its release (idempotent). */
  take(tenantId: string): () => void {
    const ofTenant = this.byTenant.get(tenantId) ?? 0;
    if (ofTenant >= this.tenantConcurrency)
      throw new TooManyImportsError('tenant', this.tenantConcurrency);
    if (this.total >= this.concurrency) throw new TooManyImportsError('process', this.concurrency);
    this.total++;
    this.byTenant.set(tenantId, ofTenant + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.byTenant.get(tenantId) ?? 1) - 1;
      if (left) this.byTenant.set(tenantId, left);
      else this.byTenant.delete(tenantId);
    };
  }

  get running(): number {
    return this.total;
  }
}
