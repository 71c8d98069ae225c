import { Counter, Gauge, Histogram } from 'prom-client';

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

/** What one delivery engine can tell about the work waiting, read when metrics are scraped. */
export interface QueueDepth {
  /** Pending deliveries in Postgres: due now (or overdue), and waiting for a scheduled retry. */
  due: number;
  scheduled: number;
  /** Bull jobs (a job carries one delivery, or up to 256 committed together). */
  jobs: { waiting: number; active: number; delayed: number };
  /** Deliveries this process holds in its endpoint lanes, not answered yet. */
  inLanes: number;
}

/** The engines of this process (one in production; the tests run several apps in one process). */
const sources = new Set<() => Promise<QueueDepth>>();

/** Registers an engine's reading; returns its unregistration. */
export function reportQueueDepth(read: () => Promise<QueueDepth>): () => void {
  sources.add(read);
  return () => sources.delete(read);
}

let reading: Promise<QueueDepth[]> | undefined;

/** One reading per scrape, shared by the gauges below. */
function readAll(): Promise<QueueDepth[]> {
  reading ??= Promise.all([...sources].map((read) => read())).finally(() => {
    reading = undefined;
  });
  return reading;
}

const sum = (depths: QueueDepth[], pick: (d: QueueDepth) => number) =>
  depths.reduce((total, d) => total + pick(d), 0);

export const queueDepth = new Gauge({
  name: 'webhook_queue_depth',
  help:
    'Pending webhook deliveries in PostgreSQL: due (to attempt now) and scheduled (waiting for ' +
    'a retry). Every process reports the same figure; aggregate with max.',
  labelNames: ['state'],
  async collect() {
    const depths = await readAll();
    this.set(
      { state: 'due' },
      sum(depths, (d) => d.due),
    );
    this.set(
      { state: 'scheduled' },
      sum(depths, (d) => d.scheduled),
    );
  },
});

export const queueJobs = new Gauge({
  name: 'webhook_queue_jobs',
  help: 'Webhook jobs in the Bull queue, by state. Every process reports the same figure.',
  labelNames: ['state'],
  async collect() {
    const depths = await readAll();
    for (const state of ['waiting', 'active', 'delayed'] as const) {
      this.set(
        { state },
        sum(depths, (d) => d.jobs[state]),
      );
    }
  },
});

export const laneDeliveries = new Gauge({
  name: 'webhook_lane_deliveries',
  help: 'Webhook deliveries this process has taken from the queue and not answered yet.',
  async collect() {
    this.set(sum(await readAll(), (d) => d.inLanes));
  },
});
