import { createServer, type Server } from 'node:http';
import { register } from 'prom-client';
import { DomainError } from '../common/errors/domain-error';
import { PROBLEM_CONTENT_TYPE, problem } from '../common/errors/problem';
import type { ReadinessService } from './readiness.service';

/**
 * A `worker` process serves no API, but an orchestrator still needs to probe it and Prometheus
 * to scrape it: on `WORKER_HEALTH_PORT` it answers `GET /health/live`, `GET /health/ready` (the
 * same rule and bodies as the API's, for the worker role) and `GET /metrics`, nothing else.
 */
export function startWorkerHealthServer(
  readiness: ReadinessService,
  port: number,
): Promise<Server> {
  const server = createServer((req, res) => {
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    };
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return send(
        405,
        PROBLEM_CONTENT_TYPE,
        JSON.stringify(problem(405, 'method_not_allowed', 'GET only.')),
      );
    }
    if (path === '/health/live') return send(200, 'application/json', '{"status":"ok"}');
    if (path === '/health/ready') {
      readiness.check().then(
        (ready) => send(200, 'application/json', JSON.stringify(ready)),
        (error: unknown) => {
          const refusal =
            error instanceof DomainError
              ? problem(error.status, error.code, error.detail)
              : problem(503, 'unavailable', 'Not ready.');
          send(refusal.status, PROBLEM_CONTENT_TYPE, JSON.stringify(refusal));
        },
      );
      return;
    }
    if (path === '/metrics') {
      register.metrics().then(
        (text) => send(200, register.contentType, text),
        () => send(500, 'text/plain', 'metrics unavailable'),
      );
      return;
    }
    send(
      404,
      PROBLEM_CONTENT_TYPE,
      JSON.stringify(problem(404, 'not_found', `No route for ${path}.`)),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => resolve(server));
  });
}
