/**
 * Redis topologies of the scale tests only, from Debian's `redis-server` on loopback ports of
 * 44000-44999 (never the shared Redis): a primary with a replica watched by Sentinel, and a
 * three-node Redis Cluster. Every server runs under `ManagedChild`'s watchdog, in a fresh
 * directory, without persistence.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { ManagedChild } from './processes';
import { scalePort } from './scale-ports';
import { until } from './until';

async function redisServer(name: string, args: string[]): Promise<ManagedChild> {
  const child = new ManagedChild(name, 'redis-server', args, { PATH: process.env.PATH });
  await child.waitForOutput(/Ready to accept connections|Sentinel ID is/, 15_000, `${name} ready`);
  return child;
}

const BASE = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'];

async function command(port: number, ...args: string[]): Promise<unknown> {
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await client.connect();
    return await client.call(args[0], ...args.slice(1));
  } finally {
    client.disconnect();
  }
}

/** A primary, one replica and one Sentinel (quorum 1) that fails over within a few seconds. */
export class PrivateSentinel {
  readonly name = 'refprimary';
  private readonly dir = mkdtempSync(join(tmpdir(), 'redis-sentinel-'));
  private servers = new Map<number, ManagedChild>();
  private sentinel?: ManagedChild;

  private constructor(
    readonly sentinelPort: number,
    readonly dataPorts: [number, number],
  ) {}

  /** `REDIS_SENTINELS` for the app. */
  get sentinels(): string {
    return `127.0.0.1:${this.sentinelPort}`;
  }

  static async start(): Promise<PrivateSentinel> {
    const s = new PrivateSentinel(await scalePort(), [await scalePort(), await scalePort()]);
    const [primary, replica] = s.dataPorts;
    s.servers.set(
      primary,
      // --dir: a replica's full sync writes an RDB file into its directory even without --save.
      await redisServer(`redis :${primary}`, ['--port', `${primary}`, ...BASE, '--dir', s.dir]),
    );
    s.servers.set(
      replica,
      await redisServer(`redis :${replica}`, [
        '--port',
        `${replica}`,
        ...BASE,
        '--dir',
        s.dir,
        '--replicaof',
        '127.0.0.1',
        `${primary}`,
      ]),
    );
    await until('the replica in sync', async () =>
      String(await command(replica, 'INFO', 'replication')).includes('master_link_status:up'),
    );
    const config = join(s.dir, 'sentinel.conf');
    writeFileSync(
      config,
      [
        `port ${s.sentinelPort}`,
        'bind 127.0.0.1',
        'protected-mode no',
        `dir ${s.dir}`,
        `sentinel monitor ${s.name} 127.0.0.1 ${primary} 1`,
        `sentinel down-after-milliseconds ${s.name} 1000`,
        `sentinel failover-timeout ${s.name} 5000`,
        `sentinel parallel-syncs ${s.name} 1`,
        '',
      ].join('\n'),
    );
    s.sentinel = await redisServer(`sentinel :${s.sentinelPort}`, [config, '--sentinel']);
    await until('Sentinel to see the replica', async () => {
      const replicas = (await command(s.sentinelPort, 'SENTINEL', 'REPLICAS', s.name)) as unknown[];
      return replicas.length === 1;
    });
    return s;
  }

  /** The port of the primary Sentinel names now. */
  async primaryPort(): Promise<number> {
    const [, port] = (await command(
      this.sentinelPort,
      'SENTINEL',
      'GET-MASTER-ADDR-BY-NAME',
      this.name,
    )) as string[];
    return Number(port);
  }

  /** Every process of the set-up (data nodes and the Sentinel), e.g. to freeze them all. */
  processes(): ManagedChild[] {
    return [...this.servers.values(), ...(this.sentinel ? [this.sentinel] : [])];
  }

  /** SIGKILLs the current primary and waits until Sentinel has promoted the replica. */
  async killPrimaryAndFailOver(): Promise<{ from: number; to: number; ms: number }> {
    const from = await this.primaryPort();
    const started = Date.now();
    await this.servers.get(from)!.kill();
    let to = from;
    await until('Sentinel to promote the replica', async () => {
      to = await this.primaryPort();
      return to !== from;
    });
    await until('the new primary to accept writes', async () =>
      String(await command(to, 'INFO', 'replication')).includes('role:master'),
    );
    return { from, to, ms: Date.now() - started };
  }

  async stop(): Promise<void> {
    await this.sentinel?.kill();
    await Promise.all([...this.servers.values()].map((server) => server.kill()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Three primaries, no replicas, slots split evenly by `redis-cli --cluster create`. */
export class PrivateCluster {
  private readonly dir = mkdtempSync(join(tmpdir(), 'redis-cluster-'));
  private servers: ManagedChild[] = [];

  private constructor(readonly ports: number[]) {}

  /** `REDIS_CLUSTER_NODES` for the app. */
  get nodes(): string {
    return this.ports.map((port) => `127.0.0.1:${port}`).join(',');
  }

  static async start(): Promise<PrivateCluster> {
    const c = new PrivateCluster([await scalePort(), await scalePort(), await scalePort()]);
    for (const port of c.ports) {
      // The bus port is named, not left at port + 10000, which may be taken (a CI run saw it).
      const busPort = await scalePort();
      c.servers.push(
        await redisServer(`redis-cluster :${port}`, [
          '--port',
          `${port}`,
          ...BASE,
          '--dir',
          c.dir,
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
          '--cluster-node-timeout',
          '2000',
          '--cluster-port',
          `${busPort}`,
        ]),
      );
    }
    execFileSync(
      'redis-cli',
      ['--cluster', 'create', ...c.ports.map((p) => `127.0.0.1:${p}`), '--cluster-yes'],
      { stdio: 'pipe' },
    );
    for (const port of c.ports) {
      await until(`cluster state ok on :${port}`, async () =>
        String(await command(port, 'CLUSTER', 'INFO')).includes('cluster_state:ok'),
      );
    }
    return c;
  }

  /** Keys matching `pattern` on every node, with the node's port. */
  async keys(pattern: string): Promise<{ port: number; key: string }[]> {
    const found: { port: number; key: string }[] = [];
    for (const port of this.ports) {
      const keys = (await command(port, 'KEYS', pattern)) as string[];
      found.push(...keys.map((key) => ({ port, key })));
    }
    return found;
  }

  async keySlot(key: string): Promise<number> {
    return Number(await command(this.ports[0], 'CLUSTER', 'KEYSLOT', key));
  }

  async stop(): Promise<void> {
    await Promise.all(this.servers.map((server) => server.kill()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
