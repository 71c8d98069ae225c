'use strict';
// A minimal receiver for the referral service's webhooks. Node.js >= 20, no dependencies.
//
//   WEBHOOK_SECRET=whsec_… node server.js
//
// It verifies the signature over the raw body bytes (the service's X-Service-Signature, or with
// SIGNATURE_SCHEME=standard the Standard Webhooks webhook-signature), skips event ids it has
// already processed, and logs one JSON line per request. See README.md for the options and
// docs/webhooks.md for the contract.

const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const path = require('node:path');

/** Larger bodies are refused (the service's events are a few KiB). */
const MAX_BODY_BYTES = 1024 * 1024;
/** How far X-Service-Timestamp (REQUIRE_TIMESTAMP=1) or webhook-timestamp may be from our clock. */
const TIMESTAMP_TOLERANCE_S = 5 * 60;
const HEX_SHA256 = /^[0-9a-f]{64}$/;
/** One Standard Webhooks symmetric signature: `v1,` and the base64 of 32 bytes. */
const STANDARD_V1 = /^v1,([A-Za-z0-9+/]{43}=)$/;

/** Padded standard base64, as in a Standard Webhooks secret `whsec_<base64>`. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** HMAC-SHA256 of `data` keyed with the secret string's UTF-8 bytes, as raw bytes (X-Service-*). */
function hmac(secret, data) {
  return crypto.createHmac('sha256', Buffer.from(secret, 'utf8')).update(data).digest();
}

/**
 * The key of the Standard Webhooks signature: for a Standard Webhooks secret (`whsec_` + padded
 * base64 of 24 to 64 bytes, as the service issues them) the decoded bytes; for a secret issued
 * before those (`whsec_` + 43 characters of base64url) the string's UTF-8 bytes.
 */
function standardKey(secret) {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : null;
  if (encoded !== null && BASE64.test(encoded)) {
    const key = Buffer.from(encoded, 'base64');
    if (key.length >= 24 && key.length <= 64 && key.toString('base64') === encoded) return key;
  }
  return Buffer.from(secret, 'utf8');
}

/** Constant-time check of a lowercase hex signature header against the expected digest. */
function signatureMatches(header, expected) {
  if (typeof header !== 'string' || !HEX_SHA256.test(header)) return false;
  return crypto.timingSafeEqual(Buffer.from(header, 'hex'), expected);
}

/**
 * True when X-Service-Signature or X-Service-Signature-Previous is the HMAC of the raw body under
 * one of the secrets we know. Checking both headers against both secrets keeps events flowing
 * through a rotation whichever side switches first (see README, "Rotating the secret").
 */
function verifyBody(rawBody, headers, secrets) {
  const given = [headers['x-service-signature'], headers['x-service-signature-previous']];
  let ok = false;
  for (const secret of secrets) {
    const expected = hmac(secret, rawBody);
    // No early exit: every comparison runs, so timing says nothing about which one matched.
    for (const header of given) ok = signatureMatches(header, expected) || ok;
  }
  return ok;
}

/**
 * Replay protection: X-Service-Timestamp (unix seconds) within ±5 min of now, and
 * X-Service-Signature-Timestamped = HMAC("<timestamp>.<raw body>") under one of our secrets.
 */
function verifyTimestamp(rawBody, headers, secrets, nowMs) {
  const stamp = headers['x-service-timestamp'];
  if (typeof stamp !== 'string' || !/^\d{1,12}$/.test(stamp)) return false;
  if (Math.abs(nowMs / 1000 - Number(stamp)) > TIMESTAMP_TOLERANCE_S) return false;
  const signed = Buffer.concat([Buffer.from(`${stamp}.`, 'utf8'), rawBody]);
  let ok = false;
  for (const secret of secrets) {
    ok = signatureMatches(headers['x-service-signature-timestamped'], hmac(secret, signed)) || ok;
  }
  return ok;
}

/**
 * The Standard Webhooks check (https://www.standardwebhooks.com), the second way to verify: the
 * `webhook-signature` header is a space-separated list of `v1,<base64>` signatures, each an
 * HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>`; one must match under one of our
 * secrets (the key is `standardKey(secret)`: the base64-decoded part after `whsec_`), and
 * `webhook-timestamp` must be within ±5 minutes. During a rotation the service sends a second
 * signature made with the previous secret. Libraries do the same, e.g. npm `standardwebhooks`:
 * `new Webhook(secret).verify(rawBody, headers)`.
 */
function verifyStandard(rawBody, headers, secrets, nowMs) {
  const id = headers['webhook-id'];
  const stamp = headers['webhook-timestamp'];
  const header = headers['webhook-signature'];
  if (typeof id !== 'string' || !id || typeof header !== 'string') return false;
  if (typeof stamp !== 'string' || !/^\d{1,12}$/.test(stamp)) return false;
  if (Math.abs(nowMs / 1000 - Number(stamp)) > TIMESTAMP_TOLERANCE_S) return false;
  const given = header
    .split(' ')
    .map((signature) => STANDARD_V1.exec(signature))
    .filter(Boolean)
    .map((match) => Buffer.from(match[1], 'base64'));
  const signed = Buffer.concat([Buffer.from(`${id}.${stamp}.`, 'utf8'), rawBody]);
  let ok = false;
  for (const secret of secrets) {
    const expected = crypto.createHmac('sha256', standardKey(secret)).update(signed).digest();
    for (const signature of given) ok = crypto.timingSafeEqual(signature, expected) || ok;
  }
  return ok;
}

/**
 * The event ids already processed, oldest first, capped at `max`. With a `file` they survive a
 * restart (written atomically after each event). `claim` is synchronous, so two requests for the
 * same event can never both pass it: Node runs it to the end before it looks at the other.
 */
class ProcessedEvents {
  constructor({ file, max = 10_000 } = {}) {
    this.file = file || null;
    this.max = max;
    this.done = new Set();
    this.inFlight = new Set();
    this.writes = Promise.resolve();
    if (this.file && fs.existsSync(this.file)) {
      const ids = JSON.parse(fs.readFileSync(this.file, 'utf8'));
      for (const id of ids.slice(-this.max)) this.done.add(id);
    }
  }

  /** Check-and-set: 'claimed' (process it now), 'duplicate' (done before) or 'in_progress'. */
  claim(eventId) {
    if (this.done.has(eventId)) return 'duplicate';
    if (this.inFlight.has(eventId)) return 'in_progress';
    this.inFlight.add(eventId);
    return 'claimed';
  }

  /** Processing failed: let a later retry of the same event try again. */
  release(eventId) {
    this.inFlight.delete(eventId);
  }

  /** Processing succeeded: remember the id (dropping the oldest beyond the cap) and save. */
  complete(eventId) {
    this.inFlight.delete(eventId);
    this.done.add(eventId);
    for (const oldest of this.done) {
      if (this.done.size <= this.max) break;
      this.done.delete(oldest);
    }
    return this.save();
  }

  /** Writes are chained, so they never interleave; each writes a temp file and renames it. */
  save() {
    if (!this.file) return Promise.resolve();
    const next = this.writes.then(async () => {
      const tmp = `${this.file}.${process.pid}.tmp`;
      await fs.promises.writeFile(tmp, JSON.stringify([...this.done]) + '\n');
      await fs.promises.rename(tmp, this.file);
    });
    this.writes = next.catch(() => undefined);
    return next;
  }
}

function logLine(line) {
  process.stdout.write(JSON.stringify({ at: new Date().toISOString(), ...line }) + '\n');
}

/** The default processing: replace with your own (update an order, credit a partner, …). */
async function defaultOnEvent() {}

/**
 * Builds the request handler.
 *   secret            WEBHOOK_SECRET (required)
 *   previousSecret    WEBHOOK_PREVIOUS_SECRET, during a rotation
 *   scheme            'service' (X-Service-Signature, the default) or 'standard' (Standard
 *                     Webhooks: webhook-id, webhook-timestamp, webhook-signature)
 *   requireTimestamp  also require a fresh, signed X-Service-Timestamp ('service' only; the
 *                     Standard Webhooks check always includes its timestamp)
 *   store             a ProcessedEvents
 *   onEvent(envelope) your processing; throw to answer 500 and get the event again later
 *   log(line)         where the one line per request goes (default: JSON on stdout)
 */
function createHandler({
  secret,
  previousSecret,
  scheme = 'service',
  requireTimestamp = false,
  store = new ProcessedEvents(),
  onEvent = defaultOnEvent,
  log = logLine,
  now = Date.now,
}) {
  if (!secret) throw new Error('WEBHOOK_SECRET is required');
  if (scheme !== 'service' && scheme !== 'standard') {
    throw new Error(`SIGNATURE_SCHEME must be 'service' or 'standard', not '${scheme}'`);
  }
  const secrets = previousSecret ? [secret, previousSecret] : [secret];

  const answer = (res, status, body) => {
    const json = JSON.stringify(body);
    res.writeHead(status, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(json),
    });
    res.end(json);
  };

  return (req, res) => {
    if (req.method !== 'POST') return answer(res, 405, { error: 'method not allowed' });

    // Collect the raw bytes. Never verify a re-serialised JSON.parse result: it differs.
    const chunks = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('error', () => undefined);
    req.on('end', () => {
      if (tooLarge) return answer(res, 413, { error: 'payload too large' });
      const raw = Buffer.concat(chunks);
      const eventIdHeader = req.headers['x-service-event-id'];

      const verified =
        scheme === 'standard'
          ? verifyStandard(raw, req.headers, secrets, now())
          : verifyBody(raw, req.headers, secrets);
      if (!verified) {
        log({ result: 'rejected', reason: 'invalid signature', event_id: eventIdHeader });
        return answer(res, 401, { error: 'invalid signature' });
      }
      if (
        scheme === 'service' &&
        requireTimestamp &&
        !verifyTimestamp(raw, req.headers, secrets, now())
      ) {
        log({ result: 'rejected', reason: 'invalid timestamp', event_id: eventIdHeader });
        return answer(res, 401, { error: 'invalid timestamp' });
      }

      let envelope;
      try {
        envelope = JSON.parse(raw.toString('utf8'));
      } catch {
        log({ result: 'rejected', reason: 'invalid json', event_id: eventIdHeader });
        return answer(res, 400, { error: 'invalid json' });
      }
      const eventId = envelope && envelope.event_id;
      if (typeof eventId !== 'string' || !eventId) {
        log({ result: 'rejected', reason: 'missing event_id', event_id: eventIdHeader });
        return answer(res, 400, { error: 'missing event_id' });
      }
      const line = {
        event_id: eventId,
        event_type: envelope.event_type,
        attempt: Number(req.headers['x-service-delivery-attempt']) || undefined,
      };

      const claim = store.claim(eventId);
      if (claim === 'duplicate') {
        log({ ...line, result: 'duplicate' });
        return answer(res, 200, { received: true, duplicate: true });
      }
      if (claim === 'in_progress') {
        // Another request for this event is being processed right now. Acknowledging it would
        // lose the event if that processing fails, so ask the service to retry later.
        log({ ...line, result: 'in_progress' });
        return answer(res, 409, { error: 'event is being processed' });
      }

      Promise.resolve()
        .then(() => onEvent(envelope, req.headers))
        .then(
          () =>
            store.complete(eventId).catch((error) => {
              // Processed, and remembered in memory; only the file is behind.
              log({ ...line, result: 'warning', reason: `could not save ids: ${error.message}` });
            }),
          (error) => {
            store.release(eventId);
            throw error;
          },
        )
        .then(
          () => {
            log({ ...line, result: 'processed' });
            answer(res, 200, { received: true });
          },
          (error) => {
            log({ ...line, result: 'failed', reason: String(error && error.message) });
            answer(res, 500, { error: 'processing failed' });
          },
        );
    });
  };
}

/** An http.Server, or an https.Server when `tls` ({key, cert}) is given; not listening yet. */
function createReceiver(options) {
  const handler = createHandler(options);
  return options.tls ? https.createServer(options.tls, handler) : http.createServer(handler);
}

function main() {
  const env = process.env;
  if (!env.WEBHOOK_SECRET) {
    process.stderr.write('Set WEBHOOK_SECRET to the secret shown by PUT …/webhook (whsec_…).\n');
    process.exit(1);
  }
  if (env.SIGNATURE_SCHEME && !['service', 'standard'].includes(env.SIGNATURE_SCHEME)) {
    process.stderr.write("Set SIGNATURE_SCHEME to 'service' (the default) or 'standard'.\n");
    process.exit(1);
  }
  if (Boolean(env.TLS_KEY) !== Boolean(env.TLS_CERT)) {
    process.stderr.write('Set both TLS_KEY and TLS_CERT (PEM files), or neither.\n');
    process.exit(1);
  }
  const tls = env.TLS_KEY
    ? { key: fs.readFileSync(env.TLS_KEY), cert: fs.readFileSync(env.TLS_CERT) }
    : undefined;
  // PROCESSED_FILE=":memory:" keeps the ids in memory only (lost on restart).
  const file =
    env.PROCESSED_FILE === ':memory:'
      ? null
      : path.resolve(env.PROCESSED_FILE || path.join(__dirname, 'processed-events.json'));
  const store = new ProcessedEvents({ file, max: Number(env.PROCESSED_MAX) || 10_000 });

  const server = createReceiver({
    secret: env.WEBHOOK_SECRET,
    previousSecret: env.WEBHOOK_PREVIOUS_SECRET || undefined,
    scheme: env.SIGNATURE_SCHEME || 'service',
    requireTimestamp: env.REQUIRE_TIMESTAMP === '1',
    store,
    tls,
  });
  const port = env.PORT === undefined || env.PORT === '' ? 4000 : Number(env.PORT);
  server.listen(port, env.HOST, () => {
    const scheme = tls ? 'https' : 'http';
    logLine({
      result: 'listening',
      url: `${scheme}://localhost:${server.address().port}/`,
      store: file || 'memory',
      previous_secret: Boolean(env.WEBHOOK_PREVIOUS_SECRET),
      signature_scheme: env.SIGNATURE_SCHEME || 'service',
      require_timestamp: env.REQUIRE_TIMESTAMP === '1',
    });
  });
  const stop = () => {
    server.close(() => store.writes.then(() => process.exit(0)));
    server.closeIdleConnections(); // the service keeps connections alive between deliveries
    setTimeout(() => process.exit(0), 5000).unref();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (require.main === module) main();

module.exports = {
  createReceiver,
  createHandler,
  ProcessedEvents,
  verifyBody,
  verifyTimestamp,
  verifyStandard,
  standardKey,
};
