'use strict';
// node --test test.js  (Node.js >= 20, no dependencies)
// Starts server.js as a child process on a free port, as you would run it, and drives it over
// HTTP(S) with requests signed the way the service signs them.

const assert = require('node:assert/strict');
const { spawn, execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const os = require('node:os');
const path = require('node:path');
const { after, before, describe, it } = require('node:test');
const { createReceiver, ProcessedEvents } = require('./server.js');

const SECRET = 'whsec_test_current_0123456789abcdef';
const OLD_SECRET = 'whsec_test_previous_0123456789abcdef';
/** A secret in the form the service issues now: `whsec_` + base64 of 32 random bytes. */
const STANDARD_SECRET = `whsec_${crypto.randomBytes(32).toString('base64')}`;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'webhook-receiver-test-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const hmacHex = (secret, data) => crypto.createHmac('sha256', secret).update(data).digest('hex');

/** The headers the service sends for `body` (a string or Buffer). */
function signedHeaders(body, { secret = SECRET, previous, timestamp } = {}) {
  const ts = timestamp ?? Math.floor(Date.now() / 1000);
  const headers = {
    'Content-Type': 'application/json',
    'X-Service-Signature': hmacHex(secret, body),
    'X-Service-Delivery-Attempt': '1',
    'X-Service-Timestamp': String(ts),
    'X-Service-Signature-Timestamped': hmacHex(
      secret,
      Buffer.concat([Buffer.from(`${ts}.`), Buffer.from(body)]),
    ),
  };
  if (previous) headers['X-Service-Signature-Previous'] = hmacHex(previous, body);
  return headers;
}

/** The Standard Webhooks headers the service sends beside its own: one v1 signature per secret. */
// The key: the base64 after `whsec_` of a Standard Webhooks secret (as the service issues them),
// the string's UTF-8 of a secret issued before (these test secrets, with `_`, are such).
function standardHeaders(body, { secrets = [SECRET], id, timestamp } = {}) {
  const ts = timestamp ?? Math.floor(Date.now() / 1000);
  const eventId = id ?? JSON.parse(body).event_id;
  const signed = Buffer.concat([Buffer.from(`${eventId}.${ts}.`), Buffer.from(body)]);
  const key = (secret) =>
    secret === STANDARD_SECRET ? Buffer.from(secret.slice('whsec_'.length), 'base64') : secret;
  const signature = (secret) =>
    `v1,${crypto.createHmac('sha256', key(secret)).update(signed).digest('base64')}`;
  return {
    'Content-Type': 'application/json',
    'webhook-id': eventId,
    'webhook-timestamp': String(ts),
    'webhook-signature': secrets.map(signature).join(' '),
  };
}

function envelope(eventId, payload = { lead_id: 'lead_01TEST', metadata: {} }) {
  return JSON.stringify({
    event_type: 'lead.created',
    event_id: eventId,
    occurred_at: new Date().toISOString(),
    payload,
  });
}

/** POSTs exact bytes; resolves {status, body (parsed JSON)}. */
function post(url, body, headers, ca) {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const client = target.protocol === 'https:' ? https : http;
    const req = client.request(target, { method: 'POST', headers, ca, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode, body: JSON.parse(Buffer.concat(chunks).toString()) }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs server.js with `env` on a free port; resolves once it listens. */
function startChild(env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, 'server.js')], {
      env: { PATH: process.env.PATH, PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines = [];
    let buffered = '';
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => {
      buffered += d;
      let nl;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = JSON.parse(buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
        lines.push(line);
        if (line.result === 'listening') {
          resolve({
            url: line.url,
            lines,
            stop: () =>
              new Promise((done) => {
                child.once('exit', done);
                child.kill('SIGTERM');
              }),
          });
        }
      }
    });
    child.once('exit', (code) => reject(new Error(`server.js exited ${code}: ${stderr}`)));
  });
}

/** The log lines for `eventId` once there are `count` (stdout may arrive after the answer). */
async function logFor(server, eventId, count) {
  for (let i = 0; i < 100; i++) {
    const lines = server.lines.filter((l) => l.event_id === eventId);
    if (lines.length >= count) return lines;
    await new Promise((r) => setTimeout(r, 20));
  }
  return server.lines.filter((l) => l.event_id === eventId);
}

describe('server.js over HTTP (child process, file store)', () => {
  const processedFile = path.join(tmp, 'processed-events.json');
  let server;
  before(async () => {
    server = await startChild({ WEBHOOK_SECRET: SECRET, PROCESSED_FILE: processedFile });
  });
  after(() => server.stop());

  it('accepts a correctly signed body: 200 {"received":true}', async () => {
    const body = envelope('evt_ok_1');
    const res = await post(server.url, body, signedHeaders(body));
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { received: true });
  });

  it('refuses a body with one changed byte: 401', async () => {
    const body = Buffer.from(envelope('evt_tampered_1'));
    const headers = signedHeaders(body);
    body[body.indexOf('lead_01TEST') + 5] ^= 0x01; // "lead_01TEST" -> "lead_11TEST"
    const res = await post(server.url, body, headers);
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, { error: 'invalid signature' });
  });

  it('refuses a request without a signature: 401', async () => {
    const body = envelope('evt_unsigned_1');
    const res = await post(server.url, body, { 'Content-Type': 'application/json' });
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, { error: 'invalid signature' });
  });

  it('refuses a malformed signature and one made with another secret: 401', async () => {
    const body = envelope('evt_badsig_1');
    for (const signature of ['abc', 'Z'.repeat(64), hmacHex('whsec_someone_else', body)]) {
      const res = await post(server.url, body, { 'X-Service-Signature': signature });
      assert.equal(res.status, 401);
    }
  });

  it('processes an event_id once; the second delivery answers duplicate', async () => {
    const body = envelope('evt_twice_1');
    const first = await post(server.url, body, signedHeaders(body));
    const second = await post(server.url, body, signedHeaders(body));
    assert.deepEqual(first.body, { received: true });
    assert.equal(second.status, 200);
    assert.deepEqual(second.body, { received: true, duplicate: true });
    const results = (await logFor(server, 'evt_twice_1', 2)).map((l) => l.result);
    assert.deepEqual(results, ['processed', 'duplicate']);
  });

  it('verifies the raw bytes: unusual whitespace and unicode that re-serialise differently', async () => {
    const body = Buffer.from(
      '{ "event_type":"lead.created",\r\n\t"event_id" : "evt_raw_1", "occurred_at":"2026-11-21T09:30:00.000Z",' +
        ' "payload": {"contact": {"name": "\\u041e\\u043b\\u044c\\u0433\\u0430 Ёжик 😀", "email": null},' +
        ' "amount_kopecks": 1.0e3, "metadata": {"note": "caf\\u00e9 \\/ \\"q\\""}} }',
      'utf8',
    );
    const reserialised = JSON.stringify(JSON.parse(body.toString('utf8')));
    assert.notEqual(reserialised, body.toString('utf8'));

    const good = await post(server.url, body, signedHeaders(body));
    assert.equal(good.status, 200);
    assert.deepEqual(good.body, { received: true });
    // A signature computed over the re-serialised JSON does not match the bytes sent.
    const wrong = await post(server.url, body, signedHeaders(reserialised));
    assert.equal(wrong.status, 401);
  });

  it('remembers processed ids across a restart (processed-events.json)', async () => {
    const saved = JSON.parse(fs.readFileSync(processedFile, 'utf8'));
    assert.ok(saved.includes('evt_twice_1'));
    const restarted = await startChild({ WEBHOOK_SECRET: SECRET, PROCESSED_FILE: processedFile });
    try {
      const body = envelope('evt_twice_1');
      const res = await post(restarted.url, body, signedHeaders(body));
      assert.deepEqual(res.body, { received: true, duplicate: true });
    } finally {
      await restarted.stop();
    }
  });
});

describe('secret rotation', () => {
  it('a receiver still on the old secret accepts X-Service-Signature-Previous', async () => {
    const server = await startChild({ WEBHOOK_SECRET: OLD_SECRET, PROCESSED_FILE: ':memory:' });
    try {
      const body = envelope('evt_rot_1');
      // After POST …/webhook/secret the service signs with the new secret, and with the old one
      // in X-Service-Signature-Previous for 24 h.
      const res = await post(server.url, body, signedHeaders(body, { previous: OLD_SECRET }));
      assert.deepEqual(res.body, { received: true });
      const none = await post(server.url, body, signedHeaders(body)); // new secret only
      assert.equal(none.status, 401);
    } finally {
      await server.stop();
    }
  });

  it('a receiver on the new secret with WEBHOOK_PREVIOUS_SECRET accepts either', async () => {
    const server = await startChild({
      WEBHOOK_SECRET: SECRET,
      WEBHOOK_PREVIOUS_SECRET: OLD_SECRET,
      PROCESSED_FILE: ':memory:',
    });
    try {
      const a = envelope('evt_rot_2');
      const signedBeforeRotation = signedHeaders(a, { secret: OLD_SECRET });
      assert.deepEqual((await post(server.url, a, signedBeforeRotation)).body, { received: true });
      const b = envelope('evt_rot_3');
      const afterRotation = signedHeaders(b, { previous: OLD_SECRET });
      assert.deepEqual((await post(server.url, b, afterRotation)).body, { received: true });
      const c = envelope('evt_rot_4');
      const forged = signedHeaders(c, { secret: 'whsec_other', previous: 'whsec_other_2' });
      assert.equal((await post(server.url, c, forged)).status, 401);
    } finally {
      await server.stop();
    }
  });
});

describe('REQUIRE_TIMESTAMP=1', () => {
  let server;
  before(async () => {
    server = await startChild({
      WEBHOOK_SECRET: SECRET,
      REQUIRE_TIMESTAMP: '1',
      PROCESSED_FILE: ':memory:',
    });
  });
  after(() => server.stop());

  it('accepts a fresh timestamp with a valid X-Service-Signature-Timestamped', async () => {
    const body = envelope('evt_ts_1');
    const res = await post(server.url, body, signedHeaders(body));
    assert.deepEqual(res.body, { received: true });
  });

  it('refuses a timestamp more than 5 minutes off, a missing one, or a wrong signature', async () => {
    const body = envelope('evt_ts_2');
    const stale = signedHeaders(body, { timestamp: Math.floor(Date.now() / 1000) - 600 });
    assert.deepEqual(await post(server.url, body, stale), {
      status: 401,
      body: { error: 'invalid timestamp' },
    });
    const missing = signedHeaders(body);
    delete missing['X-Service-Timestamp'];
    assert.equal((await post(server.url, body, missing)).status, 401);
    const moved = signedHeaders(body);
    moved['X-Service-Timestamp'] = String(Number(moved['X-Service-Timestamp']) + 1);
    assert.equal((await post(server.url, body, moved)).status, 401);
  });
});

describe('SIGNATURE_SCHEME=standard (Standard Webhooks headers)', () => {
  let server;
  before(async () => {
    server = await startChild({
      WEBHOOK_SECRET: SECRET,
      WEBHOOK_PREVIOUS_SECRET: OLD_SECRET,
      SIGNATURE_SCHEME: 'standard',
      PROCESSED_FILE: ':memory:',
    });
  });
  after(() => server.stop());

  it('accepts a request whose webhook-signature matches, as the service sends it', async () => {
    const body = envelope('evt_std_1');
    const res = await post(server.url, body, { ...signedHeaders(body), ...standardHeaders(body) });
    assert.deepEqual(res.body, { received: true });
  });

  it('accepts either v1 signature during a rotation, under either secret it knows', async () => {
    const a = envelope('evt_std_2');
    const both = standardHeaders(a, { secrets: ['whsec_newer_than_ours', OLD_SECRET] });
    assert.deepEqual((await post(server.url, a, both)).body, { received: true });
    const b = envelope('evt_std_3');
    assert.deepEqual((await post(server.url, b, standardHeaders(b))).body, { received: true });
  });

  it('with a Standard Webhooks secret, the key is its decoded base64, not the string', async () => {
    const current = await startChild({
      WEBHOOK_SECRET: STANDARD_SECRET,
      SIGNATURE_SCHEME: 'standard',
      PROCESSED_FILE: ':memory:',
    });
    try {
      const body = envelope('evt_std_5');
      const good = standardHeaders(body, { secrets: [STANDARD_SECRET] });
      assert.deepEqual((await post(current.url, body, good)).body, { received: true });
      // Keyed with the string's UTF-8 instead: refused.
      const ts = good['webhook-timestamp'];
      const other = envelope('evt_std_6');
      const wrong = crypto
        .createHmac('sha256', STANDARD_SECRET)
        .update(`evt_std_6.${ts}.${other}`)
        .digest('base64');
      const res = await post(current.url, other, {
        ...standardHeaders(other, { secrets: [STANDARD_SECRET], timestamp: Number(ts) }),
        'webhook-signature': `v1,${wrong}`,
      });
      assert.equal(res.status, 401);
    } finally {
      await current.stop();
    }
  });

  it('refuses a changed body, another secret, a stale timestamp, another id, or no headers', async () => {
    const body = envelope('evt_std_4');
    const good = standardHeaders(body);
    const cases = [
      [body.replace('lead_01TEST', 'lead_11TEST'), good],
      [body, standardHeaders(body, { secrets: ['whsec_someone_else'] })],
      [body, standardHeaders(body, { timestamp: Math.floor(Date.now() / 1000) - 600 })],
      [body, { ...good, 'webhook-id': 'evt_other' }],
      [body, { ...good, 'webhook-signature': `v1a,${good['webhook-signature'].slice(3)}` }],
      // Only X-Service-* headers: this receiver checks the Standard Webhooks ones.
      [body, signedHeaders(body)],
    ];
    for (const [sent, headers] of cases) {
      assert.deepEqual(await post(server.url, sent, headers), {
        status: 401,
        body: { error: 'invalid signature' },
      });
    }
  });
});

describe('concurrency and failures (in-process)', () => {
  async function listen(options) {
    const server = createReceiver({ secret: SECRET, log: () => undefined, ...options });
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() };
  }

  it('concurrent duplicates: processed exactly once, never acknowledged before processing', async () => {
    let calls = 0;
    let release;
    const gate = new Promise((r) => (release = r));
    const server = await listen({
      onEvent: async () => {
        calls++;
        await gate; // the first request is still processing while the others arrive
      },
    });
    try {
      const body = envelope('evt_race_1');
      const pending = Array.from({ length: 10 }, () => post(server.url, body, signedHeaders(body)));
      await new Promise((r) => setTimeout(r, 200));
      release();
      const answers = await Promise.all(pending);
      assert.equal(calls, 1);
      const ok = answers.filter((a) => a.status === 200);
      assert.deepEqual(ok, [{ status: 200, body: { received: true } }]);
      // The others were told to come back later (the service retries a 409 on its schedule).
      for (const a of answers.filter((x) => x.status !== 200)) {
        assert.deepEqual(a, { status: 409, body: { error: 'event is being processed' } });
      }
      const later = await post(server.url, body, signedHeaders(body));
      assert.deepEqual(later.body, { received: true, duplicate: true });
      assert.equal(calls, 1);
    } finally {
      server.close();
    }
  });

  it('a failed processing answers 500 and the next delivery processes it again', async () => {
    let calls = 0;
    const server = await listen({
      onEvent: async () => {
        if (++calls === 1) throw new Error('database down');
      },
    });
    try {
      const body = envelope('evt_fail_1');
      assert.equal((await post(server.url, body, signedHeaders(body))).status, 500);
      assert.deepEqual((await post(server.url, body, signedHeaders(body))).body, {
        received: true,
      });
      assert.equal(calls, 2);
    } finally {
      server.close();
    }
  });

  it('ProcessedEvents caps its size, dropping the oldest ids', async () => {
    const store = new ProcessedEvents({ max: 3 });
    for (const id of ['a', 'b', 'c', 'd']) {
      assert.equal(store.claim(id), 'claimed');
      await store.complete(id);
    }
    assert.deepEqual([...store.done], ['b', 'c', 'd']);
    assert.equal(store.claim('d'), 'duplicate');
  });
});

describe('HTTPS (TLS_KEY / TLS_CERT)', () => {
  let hasOpenssl = true;
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
  } catch {
    hasOpenssl = false;
  }

  it('serves HTTPS with a self-signed certificate', { skip: !hasOpenssl && 'no openssl' }, async () => {
    const key = path.join(tmp, 'key.pem');
    const cert = path.join(tmp, 'cert.pem');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost',
        '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert],
      { stdio: 'ignore' },
    );
    const server = await startChild({
      WEBHOOK_SECRET: SECRET,
      TLS_KEY: key,
      TLS_CERT: cert,
      PROCESSED_FILE: ':memory:',
    });
    try {
      assert.match(server.url, /^https:/);
      const body = envelope('evt_tls_1');
      const res = await post(server.url, body, signedHeaders(body), fs.readFileSync(cert));
      assert.deepEqual(res.body, { received: true });
    } finally {
      await server.stop();
    }
  });
});
