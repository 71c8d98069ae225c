import type { Request } from 'express';
import { PassThrough, type Readable } from 'node:stream';

/**
 * A request body for a reader that may stop midway (an over-long line, an unknown column): the
 * reader gets `stream`, which it (or a pipeline's error) may destroy without destroying the
 * request; destroying the request would close its socket and the client, still sending, would
 * never see the answer. Once the reader has refused the body, `drain()` reads the rest of it and
 * drops it (no parsing, no copy), as body-parser does, so that the refusal reaches the client;
 * a body going on past `maxBytes` in all has its connection closed instead.
 */
export function detachableBody(
  req: Request,
  maxBytes: number,
): { stream: Readable; drain: () => Promise<void> } {
  let seen = 0;
  const count = (chunk: Buffer) => (seen += chunk.length);
  req.on('data', count);
  const stream = new PassThrough();
  req.pipe(stream);
  const drain = () =>
    new Promise<void>((resolve) => {
      req.unpipe(stream);
      if (req.readableEnded || req.destroyed) return resolve();
      const done = () => {
        req.off('data', stop);
        req.off('end', done);
        req.off('close', done);
        resolve();
      };
      const stop = () => {
        if (seen <= maxBytes) return;
        req.off('data', count);
        req.off('data', stop);
        req.socket?.destroy();
        resolve();
      };
      req.on('data', stop);
      req.once('end', done);
      req.once('close', done);
      req.resume();
    });
  return { stream, drain };
}
