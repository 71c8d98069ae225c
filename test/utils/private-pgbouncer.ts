/**
 * A PgBouncer of the scale tests only (Debian's `pgbouncer`, 1.18 or later) in transaction pooling
 * mode, on a loopback port of its own in front of one PostgreSQL server (the system cluster or a
 * private one), which stays untouched. Any database name is passed through (`* =`). It runs as the
 * `postgres` user through `setpriv` (PgBouncer refuses root), with its config in a fresh directory.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManagedChild } from './processes';
import { scalePort } from './scale-ports';

const AS_POSTGRES = ['--reuid=postgres', '--regid=postgres', '--clear-groups'];

export class PrivatePgBouncer {
  private process?: ManagedChild;

  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  /** The pooler's address for `url`: same user and database, the pooler's host and port. */
  pooled(url: string): string {
    const pooled = new URL(url);
    pooled.hostname = '127.0.0.1';
    pooled.port = String(this.port);
    return pooled.toString();
  }

  static async start(server: { host: string; port: number }, poolSize = 40) {
    const dir = mkdtempSync(join(tmpdir(), 'pgbouncer-private-'));
    const port = await scalePort();
    writeFileSync(join(dir, 'userlist.txt'), '"postgres" ""\n');
    writeFileSync(
      join(dir, 'pgbouncer.ini'),
      [
        '[databases]',
        `* = host=${server.host} port=${server.port}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${join(dir, 'userlist.txt')}`,
        'pool_mode = transaction',
        'max_client_conn = 2000',
        `default_pool_size = ${poolSize}`,
        'server_lifetime = 3600',
        'log_connections = 0',
        'log_disconnections = 0',
        // Sent by some drivers; harmless to drop. `options` is NOT listed: it is refused, as
        // in a default deployment, so a process that relies on it fails here. statement_timeout
        // (DATABASE_STATEMENT_TIMEOUT_MS) is dropped as docs/operations.md tells operators to.
        'ignore_startup_parameters = extra_float_digits,statement_timeout',
        'admin_users = postgres',
        // SHOW STATS totals fresh within a second (test/scale/through-pgbouncer.ts reads them).
        'stats_period = 1',
        '',
      ].join('\n'),
    );
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
    const bouncer = new PrivatePgBouncer(port, dir);
    bouncer.process = new ManagedChild(
      `pgbouncer :${port}`,
      'setpriv',
      [...AS_POSTGRES, 'pgbouncer', join(dir, 'pgbouncer.ini')],
      { PATH: `${process.env.PATH}:/usr/sbin` },
    );
    await bouncer.process.waitForOutput(/process up/, 10_000, `PgBouncer up on port ${port}`);
    return bouncer;
  }

  logs(): string {
    return this.process?.logs() ?? '';
  }

  async stop(): Promise<void> {
    await this.process?.stop('SIGINT');
    rmSync(this.dir, { recursive: true, force: true });
  }
}
