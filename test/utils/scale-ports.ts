import { createServer } from 'node:net';

/** Ports this test file was given; a port handed out but not yet bound still looks free. */
const handedOut = new Set<number>();

/**
 * A free loopback port in 44000–44999, the range of the scale tests' own servers (PgBouncer, a
 * private primary and replica, Redis Sentinel and Cluster, app processes). A random start and a
 * check that it binds keep files that run at once apart.
 */
export async function scalePort(): Promise<number> {
  const start = 44000 + Math.floor(Math.random() * 1000);
  for (let i = 0; i < 1000; i++) {
    const port = 44000 + ((start - 44000 + i) % 1000);
    if (!handedOut.has(port) && (await bindable(port))) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('no free port in 44000-44999');
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
