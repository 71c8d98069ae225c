import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { NextFunction, Request, Response } from 'express';
import type { FieldError } from '../errors/domain-error';
import { ValidationFailedError } from '../errors/domain-error';
import { PROBLEM_CONTENT_TYPE, problem } from '../errors/problem';
import { errorPage, isPopupRequest } from '../pages/error-page';
import { sendResult } from '../pages/send';
import { REQUEST_ID_HEADER, requestIdFrom } from './request-id';

/**
 * One definition of text the service refuses wherever it arrives (docs/architecture.md, "Hostile
 * input"): in the request target (every path segment, every query name and value), in JSON and
 * form bodies (every key and string) and on the command line. Such text can never be a valid
 * id, name or slug, and some of it fails deep inside the stack (PostgreSQL refuses NUL in text;
 * a lone surrogate is not UTF-8), so it is refused at the door as `400 validation_failed` (an
 * HTML error page on the HTML surfaces) instead of failing later as a 500.
 */

/** Longest path segment (decoded). Ids, slugs and codes are far shorter. */
export const MAX_PATH_SEGMENT = 256;
/** Longest query parameter name or value (decoded); a popup `redirect_uri` fits. */
export const MAX_QUERY_VALUE = 2048;
/** Deepest nesting of a JSON body (the top-level object is level 1). */
export const MAX_JSON_DEPTH = 32;

/** C0 controls, DEL and C1 controls: never part of a URL's text. */
const URL_CONTROL = /\p{Cc}/u;
/** The same, but tab, line feed and carriage return are text in a body (an address, a note). */
const TEXT_CONTROL = /(?![\t\n\r])\p{Cc}/u;
/** A UTF-16 surrogate not paired with its other half (JSON `"\ud800"`): not encodable as UTF-8. */
const LONE_SURROGATE = /\p{Cs}/u;
/** A request target that needs no decoding and has nothing to check but its length. */
const PLAIN_TARGET = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/?]*$/;

/** Why `text` may not be body or command-line text, or undefined when it may. */
export function textProblem(text: string): string | undefined {
  if (TEXT_CONTROL.test(text)) return 'must not contain control characters';
  if (LONE_SURROGATE.test(text)) return 'must not contain unpaired UTF-16 surrogates';
  return undefined;
}

function urlTextProblem(text: string, max: number): string | undefined {
  if (URL_CONTROL.test(text)) return 'must not contain control characters';
  if (LONE_SURROGATE.test(text)) return 'must not contain unpaired UTF-16 surrogates';
  if (text.length > max) return `must be at most ${max} characters`;
  return undefined;
}

/** Strict percent-decoding: malformed escapes and bytes that are not UTF-8 give undefined. */
function decode(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/**
 * What is wrong with a request target (`req.url`: path and query string), or undefined. Each
 * path segment and each query name and value is percent-decoded (strictly: `%E0%A4%A`, an encoded
 * surrogate `%ED%A0%80` or a lone `%FF` is refused) and checked for control characters, unpaired
 * surrogates and length. Cheap for the common case: a target of plain characters only has its
 * segment lengths checked.
 */
export function requestTargetProblem(url: string): FieldError | undefined {
  const queryAt = url.indexOf('?');
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  const plain = PLAIN_TARGET.test(url);
  if (plain && url.length <= MAX_PATH_SEGMENT) return undefined;
  for (const segment of path.split('/')) {
    if (plain && segment.length <= MAX_PATH_SEGMENT) continue;
    const text = decode(segment);
    const problem =
      text === undefined
        ? 'must be valid percent-encoded UTF-8'
        : urlTextProblem(text, MAX_PATH_SEGMENT);
    if (problem) return { field: 'path', message: problem };
  }
  if (queryAt < 0) return undefined;
  for (const pair of url.slice(queryAt + 1).split('&')) {
    const eq = pair.indexOf('=');
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    const name = decode(rawName.replace(/\+/g, ' '));
    const field = name !== undefined && !urlTextProblem(name, 64) ? name : 'query';
    for (const raw of eq < 0 ? [rawName] : [rawName, pair.slice(eq + 1)]) {
      const text = decode(raw.replace(/\+/g, ' '));
      const problem =
        text === undefined
          ? 'must be valid percent-encoded UTF-8'
          : urlTextProblem(text, MAX_QUERY_VALUE);
      if (problem) return { field, message: problem };
    }
  }
  return undefined;
}

/**
 * What is wrong with a parsed JSON (or form) body, or undefined: nesting deeper than
 * MAX_JSON_DEPTH, a reserved key (`__proto__`, `constructor`, `prototype`: they cannot be carried
 * faithfully through object mapping and are the stuff of prototype pollution), or a key or string
 * that textProblem refuses. Walks without recursion, so no body can exhaust the stack.
 */
export function bodyProblem(body: unknown): FieldError | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [
    { value: body, path: '', depth: 0 },
  ];
  while (stack.length) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) return { field: path || 'body', message: problem };
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_JSON_DEPTH) {
      return { field: path || 'body', message: `is nested deeper than ${MAX_JSON_DEPTH} levels` };
    }
    const keys = Object.keys(value);
    // Pushed in reverse so the first offending field (in document order) is the one named.
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i];
      const here = path ? `${path}.${key}` : key;
      if (RESERVED_KEYS.has(key)) {
        return { field: here, message: 'uses a reserved key (__proto__, constructor, prototype)' };
      }
      const keyProblem = textProblem(key);
      if (keyProblem) return { field: path || 'body', message: `has a key that ${keyProblem}` };
      stack.push({ value: (value as Record<string, unknown>)[key], path: here, depth: depth + 1 });
    }
  }
  return undefined;
}

const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** The server-rendered pages, which answer with HTML error pages instead of problem documents. */
export const HTML_SURFACE = /^\/(org|oauth|s|demo|p)(?=[/?]|$)/;

/** Sends the HTML error page of the server-rendered surfaces (popup pages keep window.opener). */
export function sendErrorPage(
  req: Request,
  res: Response,
  status: number,
  title: string,
  message: string,
): void {
  sendResult(res, errorPage({ status, title, lines: [message], keepOpener: isPopupRequest(req) }));
}

/**
 * First in the pipeline after the request id: refuses a hostile request target (see
 * requestTargetProblem) with `400 validation_failed`, or an HTML 400 page on the HTML surfaces.
 * The fast lanes hand such requests to the pipeline untouched (src/fast-lanes/fast-lanes.ts), so
 * this is the one place they are answered.
 */
export function requestTargetMiddleware(req: Request, res: Response, next: NextFunction): void {
  const problem = requestTargetProblem(req.url);
  if (!problem) return next();
  if (HTML_SURFACE.test(req.url)) {
    return sendErrorPage(
      req,
      res,
      400,
      'This address is not valid',
      'The address contains characters that cannot be part of it. Check the link and try again.',
    );
  }
  // The Embed APIs vary by Origin on every answer, errors included (docs/embedding.md).
  if (req.url.startsWith('/embed/')) res.vary('Origin');
  next(new ValidationFailedError([problem], 'The request address is not valid.'));
}

/** What Node's HTTP parser refuses before any handler runs, as status, code and detail. */
const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [
    431,
    'headers_too_large',
    'The request line and headers are larger than the server takes (16 KiB).',
  ],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request_timeout', 'The request took too long to arrive.'],
};

/**
 * Requests Node's HTTP parser refuses (a request target or headers over 16 KiB, malformed HTTP)
 * never reach Express, and Node's own answer is a bare status line. This answers them with a
 * problem document and a request id like every other error (README.md, "Errors").
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, code, detail] = CLIENT_ERRORS[error.code ?? ''] ?? [
      400,
      'validation_failed',
      'The request is not valid HTTP.',
    ];
    const id = requestIdFrom(undefined);
    const body = JSON.stringify(problem(status, code, detail, id));
    socket.end(
      `HTTP/1.1 ${status} ${problem(status, code, detail).title}\r\n` +
        `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `${REQUEST_ID_HEADER}: ${id}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
