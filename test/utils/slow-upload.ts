import { request } from 'node:http';

export interface UploadAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown> | undefined;
}

export interface SlowUpload {
  /** The answer; rejects if the connection closed before one came (e.g. the server stopped). */
  answer: Promise<UploadAnswer>;
  /** Stops sending (the connection is destroyed). */
  abort: () => void;
}

/**
 * A POST whose body trickles in: `chunks[0]` at once, then one chunk every `everyMs`, then the end
 * (chunked transfer encoding), to a server listening on 127.0.0.1:`port`. An answer that comes
 * before the body is sent whole (a refusal) stops the trickle.
 */
export function slowUpload(
  port: number,
  path: string,
  headers: Record<string, string>,
  chunks: string[],
  everyMs: number,
): SlowUpload {
  let answered = false;
  const req = request({
    host: '127.0.0.1',
    port,
    path,
    method: 'POST',
    headers: { ...headers, 'Transfer-Encoding': 'chunked' },
  });
  let next = 0;
  req.write(chunks[next++]);
  const timer: NodeJS.Timeout = setInterval(() => {
    if (answered || req.destroyed) return clearInterval(timer);
    if (next < chunks.length) req.write(chunks[next++]);
    else {
      clearInterval(timer);
      req.end();
    }
  }, everyMs);
  const answer = new Promise<UploadAnswer>((resolve, reject) => {
    req.on('response', (res) => {
      answered = true;
      clearInterval(timer);
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        let body: Record<string, unknown> | undefined;
        try {
          body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
        } catch {
          body = { text };
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
      res.on('error', reject);
    });
    req.on('error', (error) => {
      clearInterval(timer);
      if (!answered) reject(error);
    });
  });
  answer.catch(() => undefined); // awaited by the test when it cares
  return {
    answer,
    abort: () => {
      clearInterval(timer);
      req.destroy();
    },
  };
}
