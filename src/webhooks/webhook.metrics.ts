import { Counter, Histogram } from 'prom-client';

/** Delivery outcomes: delivered, retry (failed, will try again), dead, replay_ok, replay_failed. */
export const deliveriesTotal = new Counter({
  name: 'webhook_deliveries_total',
  help: 'Webhook delivery attempts by outcome.',
  labelNames: ['outcome'],
});

export const attemptDuration = new Histogram({
  name: 'webhook_attempt_duration_seconds',
  help: 'Latency of webhook delivery attempts, by error class (none for success).',
  labelNames: ['error'],
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
});
