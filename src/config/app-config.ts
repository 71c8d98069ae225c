import type { RedisTarget } from '../redis/redis-target';
import type { TrustProxy } from './trust-proxy';

export type ProcessRole = 'api' | 'worker' | 'all';

/**
 * The validated, typed configuration. One instance per process, built by `loadConfig()` and
 * injected by class (it is its own Nest token).
 */
export class AppConfig {
  readonly nodeEnv!: string;
  readonly isProduction!: boolean;
  readonly port!: number;
  /** Where a `worker` process answers /health and /metrics (it serves no API); none if unset. */
  readonly workerHealthPort?: number;
  readonly publicBaseUrl!: string;
  readonly shortLinkBaseUrl!: string;
  readonly databaseUrl!: string;
  /** Where migrations run: a direct connection (DATABASE_URL may point at PgBouncer). */
  readonly migrationsDatabaseUrl!: string;
  /** A streaming replica for the Embed Data reads (replica-reads.ts); none if unset. */
  readonly databaseReplicaUrl?: string;
  /**
   * The database is sharded by tenant (Citus, docs/operations.md): the webhook engine writes one
   * tenant's lane per statement instead of every lane's at once, so each runs on one shard.
   */
  readonly databaseSharded!: boolean;
  /** TypeORM's pool size per process. */
  readonly databasePoolSize!: number;
  /** How long a query waits for a pool connection before it fails (503 unavailable). */
  readonly databaseConnectTimeoutMs!: number;
  /** The pool sessions' statement_timeout (0: none); imports and payout runs set a longer one. */
  readonly databaseStatementTimeoutMs!: number;
  /** Member imports at once in this process, and of one tenant in it (docs/import-export.md). */
  readonly imports!: { readonly concurrency: number; readonly tenantConcurrency: number };
  /** Idle keep-alive time of HTTP connections; headers must arrive within it plus a second. */
  readonly httpKeepAliveTimeoutMs!: number;
  readonly redisUrl!: string;
  /** One server, Sentinel or Cluster (REDIS_URL, REDIS_SENTINELS, REDIS_CLUSTER_NODES). */
  readonly redis!: RedisTarget;
  readonly adminToken!: string;
  readonly jwtSecret!: string;
  readonly refSigningSecret!: string;
  /** 32 bytes, the AES-256-GCM key for secrets that must be readable again (webhook secrets). */
  readonly secretsEncryptionKey!: Buffer;
  readonly processRole!: ProcessRole;
  readonly migrationsRun!: boolean;
  readonly webhook!: {
    readonly retryDelaysMs: readonly number[];
    readonly timeoutMs: number;
    readonly allowPrivateTargets: boolean;
    readonly caFile?: string;
    readonly sweepMs: number;
    readonly concurrency: number;
    readonly endpointConcurrency: number;
  };
  readonly bonusApprovalSweepMs!: number;
  /** How often workers turn new events into partner mail and send what is due. */
  readonly notificationPollMs!: number;
  /** Days events (and their webhook deliveries and attempts) are kept. */
  readonly eventRetentionDays!: number;
  /** How often worker processes run housekeeping (retention, expired credentials). */
  readonly housekeepingMs!: number;
  /** How often short-link clicks counted in memory are written to PostgreSQL. */
  readonly clickFlushMs!: number;
  /** How long tenant settings and short-link targets are served from memory; 0 turns it off. */
  readonly cacheTtlMs!: number;
  readonly smtpUrl?: string;
  readonly mailFrom!: string;
  readonly rateLimits!: boolean;
  readonly logLevel!: string;
  /** Bull's prefix: QUEUE_PREFIX, hash-tagged on a cluster (redis-target.ts). */
  readonly queuePrefix!: string;
  /** The rate-limit counters' own prefix: the queue prefix without its hash tag. */
  readonly rateLimitPrefix!: string;
  /** Whose X-Forwarded-For names the client (`false`: nobody's; see trust-proxy.ts). */
  readonly trustProxy!: TrustProxy;

  constructor(values: AppConfig) {
    Object.assign(this, values);
    Object.freeze(this);
  }
}
