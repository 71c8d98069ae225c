/** Injection token of the shared ioredis client (see redis.module.ts). */
export const REDIS = Symbol('REDIS');
