import type { QueueOptions } from 'bull';

/**
 * How Bull's Redis clients come back after an outage. Bull's own default reconnect back-off is
 * e^n ms capped at 20 s, so after a long outage a worker could sit up to 20 s before it looked at
 * Redis again (and a failed job fetch waited another `retryProcessDelay`, 5 s by default). Here a
 * client tries again every 50 ms × n, at most every RECONNECT_MAX_MS, so workers take jobs again
 * within about a second of Redis answering: a refused connection costs nothing, and the
 * commands queued meanwhile run the moment the client is back.
 */
export const RECONNECT_MAX_MS = 500;
/** Wait before a worker fetches jobs again after a fetch failed (Bull's default is 5 s). */
export const RETRY_PROCESS_DELAY_MS = 250;

export function reconnectDelay(times: number): number {
  return Math.min(times * 50, RECONNECT_MAX_MS);
}

/** Options every Bull queue of the service shares (BullModule.forRoot). */
export function bullRootOptions(redisUrl: string, prefix: string): QueueOptions & { url: string } {
  return {
    url: redisUrl,
    prefix,
    redis: { retryStrategy: reconnectDelay },
    settings: { retryProcessDelay: RETRY_PROCESS_DELAY_MS },
  };
}
