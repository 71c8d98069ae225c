import type { NextFunction, Request, Response } from 'express';
import { Counter, Histogram } from 'prom-client';

const duration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request latency by method, route pattern and status code.',
  labelNames: ['method', 'route', 'status_code'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});

/**
 * The request count is the latency histogram's own `_count`, copied when the metrics are scraped:
 * a request costs one observation, not two (label hashing is most of what either costs).
 */
new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests by method, route pattern and status code.',
  labelNames: ['method', 'route', 'status_code'],
  async collect() {
    const counts = (await duration.get()).values.filter(
      (v) => v.metricName === 'http_request_duration_seconds_count',
    );
    this.reset();
    for (const { labels, value } of counts) this.inc(labels, value);
  },
});

/**
 * Counts every request under its route *pattern* (`/admin/v1/tenants/:slug`), never the raw path,
 * so label cardinality stays bounded; requests that match no route count as `unmatched`.
 */
export function httpMetricsMiddleware(req: Request, res: Response, next: NextFunction): void {
  const start = process.hrtime.bigint();
  res.on('finish', () => {
    const routePath = (req.route as { path?: string } | undefined)?.path;
    const labels = {
      method: req.method,
      // Nest answers unknown paths through a catch-all route (`/{*path}`): count those as unmatched.
      route: routePath && !routePath.includes('{*') ? `${req.baseUrl}${routePath}` : 'unmatched',
      status_code: String(res.statusCode),
    };
    countRequest(labels, start);
  });
  next();
}

/** Counts one answered request; `start` is its `process.hrtime.bigint()` on arrival. */
export function countRequest(
  labels: { method: string; route: string; status_code: string },
  start: bigint,
): void {
  duration.observe(labels, Number(process.hrtime.bigint() - start) / 1e9);
}
