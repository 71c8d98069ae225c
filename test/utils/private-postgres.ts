/**
 * A PostgreSQL server of one test file only: its own data directory (initdb) and loopback port,
 * beside the system cluster, which stays untouched. A test may stop it (fast shutdown, as a
 * restart or failover does) and start it again. It runs as the `postgres` user (initdb refuses
 * root) through `setpriv`, which execs, so the child's pid is the postmaster's own and the
 * watchdog of `ManagedChild` ends it if the test process dies.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ManagedChild } from './processes';

const AS_POSTGRES = ['--reuid=postgres', '--regid=postgres', '--clear-groups'];

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  if (!versions.length) throw new Error('PostgreSQL server binaries not found under ' + root);
  return join(root, versions[0], 'bin');
}

export class PrivatePostgres {
  private process?: ManagedChild;

  private constructor(
    readonly port: number,
    private readonly dataDir: string,
  ) {}

  /** `postgres://postgres@127.0.0.1:<port>/<database>` */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  get running(): boolean {
    return this.process?.running ?? false;
  }

  /** initdb in a fresh directory, then start (on `port`, or a free one). */
  static async start(port?: number): Promise<PrivatePostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'pg-private-'));
    chownSync(dir, uid('postgres'), gid('postgres'));
    execFileSync(
      'setpriv',
      [
        ...AS_POSTGRES,
        join(binDir(), 'initdb'),
        '-D',
        dir,
        '-U',
        'postgres',
        '--auth=trust',
        '--no-sync',
        '-E',
        'UTF8',
      ],
      { stdio: 'pipe', env: { PATH: process.env.PATH, LANG: 'C.UTF-8' } },
    );
    const pg = new PrivatePostgres(port ?? (await freePort()), dir);
    await pg.start();
    return pg;
  }

  /**
   * A streaming replica of this server on `port`: `pg_basebackup -R` (initdb's default pg_hba
   * lets replication in over loopback), started as a hot standby that follows this primary.
   */
  async replica(port: number): Promise<PrivatePostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'pg-replica-'));
    chownSync(dir, uid('postgres'), gid('postgres'));
    execFileSync(
      'setpriv',
      [
        ...AS_POSTGRES,
        join(binDir(), 'pg_basebackup'),
        '-h',
        '127.0.0.1',
        '-p',
        String(this.port),
        '-U',
        'postgres',
        '-D',
        dir,
        '-R',
        '-X',
        'stream',
        // At once, not after a spread checkpoint (which waits minutes on an idle server).
        '--checkpoint=fast',
        '--no-sync',
      ],
      { stdio: 'pipe', env: { PATH: process.env.PATH, LANG: 'C.UTF-8' } },
    );
    const replica = new PrivatePostgres(port, dir);
    await replica.start();
    return replica;
  }

  /** (Re)starts the server on the same port and data; resolves once it accepts connections. */
  async start(timeoutMs = 30_000): Promise<void> {
    if (this.running) return;
    this.process = new ManagedChild(
      `postgres :${this.port}`,
      'setpriv',
      [
        ...AS_POSTGRES,
        join(binDir(), 'postgres'),
        '-D',
        this.dataDir,
        '-p',
        String(this.port),
        '-k',
        this.dataDir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'fsync=off',
        '-c',
        'synchronous_commit=off',
        '-c',
        'full_page_writes=off',
      ],
      { PATH: process.env.PATH, LANG: 'C.UTF-8' },
    );
    await this.process.waitForOutput(
      /ready to accept (read-only )?connections/,
      timeoutMs,
      `PostgreSQL ready on port ${this.port}`,
    );
  }

  /** Fast shutdown (SIGINT): sessions are ended with 57P01, as in a restart or failover. */
  async stop(): Promise<void> {
    await this.process?.stop('SIGINT', 30_000);
  }

  /** Stops the server and deletes its data directory. */
  async destroy(): Promise<void> {
    await this.process?.kill();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

function uid(user: string): number {
  return Number(execFileSync('id', ['-u', user]).toString().trim());
}

function gid(user: string): number {
  return Number(execFileSync('id', ['-g', user]).toString().trim());
}
