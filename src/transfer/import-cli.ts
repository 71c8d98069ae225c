// `npm run cli -- import --tenant <slug> FILE`: the same import as the HTTP route, in this process,
// with a progress bar on stderr (bytes while the file is staged, then the apply's phases) and the
// finished import's status as JSON on stdout. Exit code 0 when it succeeded, 1 when it failed,
// 2 when the file was refused before anything started (an unknown column, a line over the limits).
import { SingleBar } from 'cli-progress';
import { createReadStream, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { INestApplicationContext } from '@nestjs/common';
import { TenantsService } from '../tenants/tenants.service';
import type { ImportFormat } from './import-rows';
import { ImportsService } from './imports.service';
import { ImportLineRefusedError, UnknownImportColumnsError } from './transfer.errors';

export const IMPORT_USAGE = `  npm run cli -- import --tenant <slug> [--format csv|ndjson] FILE
      FILE: a CSV file with a header row, or NDJSON (.ndjson/.jsonl); docs/import-export.md`;

export interface ImportCommand {
  slug: string;
  file: string;
  format: ImportFormat;
}

/** The command's arguments, or a message for stderr. */
export function parseImportArgs(args: string[]): ImportCommand | string {
  const { values, positionals } = parseArgs({
    args,
    options: { tenant: { type: 'string' }, format: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  if (!values.tenant) return '--tenant: required';
  if (positionals.length !== 1) return 'FILE: give exactly one file';
  const file = positionals[0];
  const format = values.format ?? (/\.(nd)?jsonl?$/i.test(file) ? 'ndjson' : 'csv');
  if (format !== 'csv' && format !== 'ndjson') return '--format: csv or ndjson';
  try {
    if (!statSync(file).isFile()) return `${file}: not a file`;
  } catch {
    return `${file}: cannot be read`;
  }
  return { slug: values.tenant, file, format };
}

export async function runImportCommand(
  app: INestApplicationContext,
  command: ImportCommand,
  out: NodeJS.WriteStream = process.stdout,
  err: NodeJS.WriteStream = process.stderr,
): Promise<number> {
  const tenant = await app.get(TenantsService).tenantBySlug(command.slug);
  if (!tenant) {
    err.write(`--tenant: no tenant ${command.slug}\n`);
    return 2;
  }
  const imports = app.get(ImportsService);
  const size = statSync(command.file).size;
  // On a terminal a live bar; in a log (no TTY) the same line once a second.
  const bar = new SingleBar({
    stream: err,
    noTTYOutput: true,
    notTTYSchedule: 1000,
    format: 'import {phase} [{bar}] {percentage}% | {rows} rows | {eta_formatted}',
    hideCursor: true,
  });
  bar.start(size, 0, { phase: 'staging', rows: 0 });
  const actor = { type: 'platform' as const, name: 'cli' };
  try {
    const { importId, checker } = await imports.stage(
      tenant.id,
      command.format,
      createReadStream(command.file, { highWaterMark: 1 << 20 }),
      actor,
      (p) => bar.update(p.bytes, { phase: 'staging', rows: p.rowsTotal }),
    );
    bar.update(size, { phase: 'checking', rows: checker.stats.rows });
    const status = await imports.apply(tenant.id, importId, checker, actor, (phase) =>
      bar.update(size, { phase, rows: checker.stats.rows }),
    );
    bar.update(size, { phase: status.status, rows: checker.stats.rows });
    bar.stop();
    out.write(`${JSON.stringify(status, null, 2)}\n`);
    return status.status === 'succeeded' ? 0 : 1;
  } catch (error) {
    bar.stop();
    if (error instanceof UnknownImportColumnsError) {
      err.write(`${error.detail} ${error.errors!.map((e) => e.field).join(', ')}\n`);
      return 2;
    }
    if (error instanceof ImportLineRefusedError) {
      err.write(
        `${error.detail} ${error.errors!.map((e) => `${e.field} ${e.message}`).join('; ')}\n`,
      );
      return 2;
    }
    throw error;
  }
}
