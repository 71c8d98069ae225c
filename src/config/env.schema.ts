import { Transform } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  MinLength,
  ValidateBy,
} from 'class-validator';
import { NODE_LIST } from '../redis/redis-target';
import { trustProxyError } from './trust-proxy';

/** Booleans are written `true` or `false`; anything else is refused rather than read as false. */
const BOOLEAN = ['true', 'false'];

const toInt = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : Number(value);

/**
 * The environment as the operator writes it (README.md, "Configuration"). Every variable is
 * optional; defaults suit a local run. Secrets are checked for shape here and for presence in
 * `load-config.ts`.
 */
export class EnvironmentVariables {
  @IsOptional() @IsIn(['development', 'test', 'production']) NODE_ENV?: string;

  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(65535) PORT?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(65535) WORKER_HEALTH_PORT?: number;

  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  PUBLIC_BASE_URL?: string;

  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  SHORT_LINK_BASE_URL?: string;

  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// URL' })
  DATABASE_URL?: string;

  /** A direct connection for migrations when DATABASE_URL points at a transaction pooler. */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// URL' })
  MIGRATIONS_DATABASE_URL?: string;

  /** A streaming replica the Embed Data reads go to, falling back to the primary. */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// URL' })
  DATABASE_REPLICA_URL?: string;

  /** A database sharded by tenant (Citus): every hot statement touches one tenant's rows. */
  @IsOptional() @IsIn(BOOLEAN) DATABASE_SHARDED?: string;

  /** Connections each process keeps to PostgreSQL at most (TypeORM's pool). */
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(1000) DATABASE_POOL_SIZE?: number;

  /** How long a query waits for a pool connection (or a new one) before `503 unavailable`. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(600_000)
  DATABASE_CONNECT_TIMEOUT_MS?: number;

  /** PostgreSQL's statement_timeout for the pool's sessions (0: none); long jobs set their own. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  DATABASE_STATEMENT_TIMEOUT_MS?: number;

  /** Member imports running at once in one process, and of one tenant in one process. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(999) IMPORT_CONCURRENCY?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(999) IMPORT_TENANT_CONCURRENCY?: number;

  @IsOptional()
  @Matches(/^rediss?:\/\//, { message: 'must be a redis:// URL' })
  REDIS_URL?: string;

  /** Redis through Sentinel: its addresses (`host:port,…`) and the primary's name there. */
  @IsOptional()
  @Matches(NODE_LIST, { message: 'must be a comma-separated list of host:port' })
  REDIS_SENTINELS?: string;

  @IsOptional() @Matches(/^[A-Za-z0-9._-]{1,64}$/) REDIS_SENTINEL_NAME?: string;

  /** A Redis Cluster: some of its nodes (`host:port,…`); the rest are discovered. */
  @IsOptional()
  @Matches(NODE_LIST, { message: 'must be a comma-separated list of host:port' })
  REDIS_CLUSTER_NODES?: string;

  @IsOptional() @IsString() @MinLength(24) ADMIN_TOKEN?: string;
  @IsOptional() @IsString() @MinLength(32) JWT_SECRET?: string;
  @IsOptional() @IsString() @MinLength(32) REF_SIGNING_SECRET?: string;

  @IsOptional()
  @Matches(/^[A-Za-z0-9+/]{43}=$/, { message: 'must be 32 random bytes, base64-encoded' })
  SECRETS_ENCRYPTION_KEY?: string;

  @IsOptional() @IsIn(['api', 'worker', 'all']) PROCESS_ROLE?: string;
  @IsOptional() @IsIn(BOOLEAN) MIGRATIONS_RUN?: string;

  @IsOptional()
  @Matches(/^\d+(,\d+)*$/, { message: 'must be a comma-separated list of milliseconds' })
  WEBHOOK_RETRY_DELAYS_MS?: string;

  @IsOptional() @Transform(toInt) @IsInt() @Min(100) WEBHOOK_TIMEOUT_MS?: number;
  @IsOptional() @IsIn(BOOLEAN) WEBHOOK_ALLOW_PRIVATE_TARGETS?: string;
  @IsOptional() @IsString() WEBHOOK_CA_FILE?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(100) BONUS_APPROVAL_SWEEP_MS?: number;

  /** How often workers read new events for partner mail and send what is due. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(100) NOTIFICATION_POLL_MS?: number;

  /** How often the webhook sweeper re-enqueues deliveries that Redis lost. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(100) WEBHOOK_SWEEP_MS?: number;

  /** Attempts in flight at once per worker process, and per tenant endpoint. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(256) WEBHOOK_CONCURRENCY?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(64) WEBHOOK_ENDPOINT_CONCURRENCY?: number;

  /** Days an event and its delivery log are kept (30, docs/webhooks.md), and how often to clean. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(3650) EVENT_RETENTION_DAYS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1000) HOUSEKEEPING_MS?: number;

  /** How often short-link clicks counted in memory are written to PostgreSQL. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(10) @Max(60000) CLICK_FLUSH_MS?: number;

  /** How long a process serves tenant settings and short-link targets from memory (0: never). */
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(300000) CACHE_TTL_MS?: number;

  @IsOptional()
  @Matches(/^smtps?:\/\//, { message: 'must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;

  @IsOptional() @IsString() MAIL_FROM?: string;
  @IsOptional() @IsIn(['on', 'off']) RATE_LIMITS?: string;

  /** Idle keep-alive time: above the load balancer's own, below Node's 300 s request timeout. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(290_000)
  HTTP_KEEP_ALIVE_TIMEOUT_MS?: number;
  @IsOptional()
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL?: string;

  /**
   * Whose X-Forwarded-For names the client (docs/operations.md; default: nobody's): false, a hop
   * count, or a comma-separated list of loopback, linklocal, uniquelocal, IP addresses and CIDR
   * blocks.
   */
  @IsOptional()
  @ValidateBy({
    name: 'isTrustProxy',
    validator: {
      validate: (value: unknown) => trustProxyError(value) === undefined,
      defaultMessage: (args) => trustProxyError(args?.value) ?? 'is not valid',
    },
  })
  TRUST_PROXY?: string;

  /**
   * Prefix of every Bull key in Redis; lets several deployments (or test runs) share one Redis. It
   * may hold one hash tag (`{refq}`, `app:{refq}`), which a Redis Cluster needs (redis-target.ts).
   */
  @IsOptional()
  @Matches(/^(?=.{1,64}$)[A-Za-z0-9:_-]*(\{[A-Za-z0-9:_-]+\})?[A-Za-z0-9:_-]*$/, {
    message: 'QUEUE_PREFIX must be 1-64 of A-Z a-z 0-9 : _ - with at most one {hash tag}',
  })
  QUEUE_PREFIX?: string;
}
