/** Injection token of the shared ioredis client (see redis.module.ts). */
export const REDIS = Symbol('REDIS');
/** The set of Bull's clients made through Sentinel or Cluster (bull-options.ts). */
export const BULL_CLIENTS = Symbol('BULL_CLIENTS');
