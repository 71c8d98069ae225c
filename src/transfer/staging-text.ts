import { newId } from '../common/ids';

/**
 * The staging table's COPY input (import-rows.ts writes it, imports.repository.ts copies it in):
 * one line per row in COPY's text format, batched into chunks for fewer, larger writes.
 */

/** COPY text format: backslash, tab, newline and carriage return escaped; null as \N. */
function copyText(value: string | null): string {
  if (value === null) return '\\N';
  if (!/[\\\t\n\r]/.test(value)) return value;
  return value
    .replace(/\\/g, '\\\\')
    .replace(/\t/g, '\\t')
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r');
}

export function stagingLine(line: number, values: Record<string, string | null>): string {
  return (
    `${line}\t${newId('member')}\t${newId('serviceUser')}\t${copyText(values.external_id ?? null)}\t` +
    `${copyText(values.full_name ?? null)}\t${copyText(values.email ?? null)}\t` +
    `${copyText(values.role ?? null)}\t${copyText(values.referrer_external_id ?? null)}\t` +
    `${copyText(values.joined_at ?? null)}\t${copyText(values.group ?? null)}\n`
  );
}

/** Batches staging lines into chunks of about 256 KiB, for fewer, larger COPY writes. */
export class Batcher {
  private parts: string[] = [];
  private size = 0;
  constructor(private readonly push: (chunk: string) => void) {}
  add(text: string): void {
    if (!text) return;
    this.parts.push(text);
    this.size += text.length;
    if (this.size >= 262144) this.flush();
  }
  flush(): void {
    if (!this.parts.length) return;
    this.push(this.parts.join(''));
    this.parts = [];
    this.size = 0;
  }
}
