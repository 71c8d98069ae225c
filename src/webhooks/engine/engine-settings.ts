import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { AppConfig } from '../../config/app-config';
import type { LaneSettings } from './endpoint-lane';

/**
 * The lock of a claimed attempt, and the lease of a slot: twice the HTTP timeout and a second, so
 * a claimed attempt can wait for its slot and still end before its lock does, and a crashed
 * process's claims and slots come free soon after.
 */
export function attemptLockMs(timeoutMs: number): number {
  return 2 * timeoutMs + 1000;
}

/**
 * A claimed attempt is sent only if it can end this long before its lock does (a quarter of the
 * HTTP timeout, at least this): room for its record to be written, and for a slow event loop.
 */
const LOCK_MARGIN_MS = 500;

/** How long a claimed attempt may wait for its slot and still end well before its lock. */
export function waitBudgetMs(timeoutMs: number): number {
  const margin = Math.max(LOCK_MARGIN_MS, timeoutMs / 4);
  return attemptLockMs(timeoutMs) - timeoutMs - margin;
}

/** Claimed attempts per slot held, at most (a lane uses fewer for a slow endpoint). */
const MAX_PREFETCH = 16;

/** A busy endpoint's delivery comes back after about this long, without counting an attempt. */
export const BUSY_RETRY_MS = 1_000;

/** What the engine's parts derive from the configuration, computed once per process. */
@Injectable()
export class EngineSettings {
  /** Names this process's slot leases. */
  readonly holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  readonly lockMs: number;
  readonly waitBudgetMs: number;
  /** What every endpoint lane of this process is made with. */
  readonly lane: LaneSettings;

  constructor(config: AppConfig) {
    this.lockMs = attemptLockMs(config.webhook.timeoutMs);
    this.waitBudgetMs = waitBudgetMs(config.webhook.timeoutMs);
    this.lane = {
      cap: config.webhook.endpointConcurrency,
      maxPrefetch: MAX_PREFETCH,
      waitBudgetMs: this.waitBudgetMs,
      renewAfterMs: this.lockMs / 3,
      noSlotsRetryMs: BUSY_RETRY_MS,
    };
  }
}
