/**
 * Write throughput (docs/operations.md): `POST /federation/v1/conversions/register` per second at
 * 32 concurrent clients, beside a hand-written `node:http` + `pg` endpoint that does the same
 * writes in one transaction (a conversion, one bonus and one balance upsert per paid tier, and an
 * event per change, in tables of its own with the same keys), in the same run. Target: service ÷
 * baseline ≥ 0.5. The baseline owes nothing to the service: no validation, idempotency, tenant
 * resolution, cascade lookup or outbox beyond those rows, so the ratio is what all of that costs.
 *
 * Run: npm run bench:writes. Needs PostgreSQL and Redis (bench/harness.ts); creates and drops its
 * own database; exits 1 only if it crashes. Knobs: BENCH_CLIENTS (32), BENCH_REQUESTS (2000 per
 * side), BENCH_WARMUP (200). Then the same writes through API processes of their own, one and then
 * two behind a round robin, to print the scaling (no target).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { Pool } from 'pg';
import { spawnService, stopAllChildren } from '../test/utils/processes';
import { scalePort } from '../test/utils/scale-ports';
import { testEnv } from '../test/utils/test-env';
import {
  BENCH_REDIS_URL,
  machineLine,
  postJson,
  runBenchmark,
  untilReady,
  verdict,
} from './harness';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 32);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 200);
const TARGET_RATIO = 0.5;
const TIERS = [
  { tier: 'referrer', percent_bp: 1000 },
  { tier: 'upline_1', percent_bp: 500 },
  { tier: 'upline_2', percent_bp: 200 },
];

/** `count` requests, `CLIENTS` at a time; answers requests per second. */
async function drive(count: number, send: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < count) await send(next++);
    }),
  );
  return count / (Number(process.hrtime.bigint() - started) / 1e9);
}

const BASELINE_SCHEMA = `
  CREATE TABLE b_conversions (tenant_id text, id text, lead_id text, amount_kopecks bigint,
    currency text, external_order_id text, created_at timestamptz DEFAULT now(),
    PRIMARY KEY (tenant_id, id), UNIQUE (tenant_id, external_order_id));
  CREATE TABLE b_bonuses (tenant_id text, id text, member_id text, conversion_id text,
    tier text, amount_kopecks bigint, status text, created_at timestamptz DEFAULT now(),
    PRIMARY KEY (tenant_id, id), UNIQUE (tenant_id, conversion_id, tier));
  CREATE INDEX ON b_bonuses (tenant_id, member_id, created_at DESC);
  CREATE TABLE b_balances (tenant_id text, member_id text, currency text, pending_kopecks bigint,
    PRIMARY KEY (tenant_id, member_id, currency));
  CREATE TABLE b_events (tenant_id text, id text, type text, payload jsonb,
    created_at timestamptz DEFAULT now(), PRIMARY KEY (tenant_id, id));`;

/** The hand-written endpoint: the same rows in one transaction, nothing else. */
async function startBaseline(databaseUrl: string, tenantId: string, upline: string[]) {
  const pool = new Pool({ connectionString: databaseUrl, max: 10 });
  await pool.query(BASELINE_SCHEMA);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        lead_id: string;
        amount_kopecks: number;
        currency: string;
        external_order_id: string;
      };
      void (async () => {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          const id = `cnv_${randomBytes(10).toString('hex')}`;
          await client.query(
            `INSERT INTO b_conversions (tenant_id, id, lead_id, amount_kopecks, currency, external_order_id)
             VALUES ($1, $2, $3, $4, $5, $6)`,
            [
              tenantId,
              id,
              body.lead_id,
              body.amount_kopecks,
              body.currency,
              body.external_order_id,
            ],
          );
          await client.query(`INSERT INTO b_events VALUES ($1, $2, 'conversion.registered', $3)`, [
            tenantId,
            `evt_${randomBytes(10).toString('hex')}`,
            JSON.stringify({ conversion_id: id }),
          ]);
          for (const [i, tier] of TIERS.entries()) {
            const amount = Math.floor((body.amount_kopecks * tier.percent_bp) / 10000);
            const bonus = `bon_${randomBytes(10).toString('hex')}`;
            await client.query(`INSERT INTO b_bonuses VALUES ($1, $2, $3, $4, $5, $6, 'pending')`, [
              tenantId,
              bonus,
              upline[i],
              id,
              tier.tier,
              amount,
            ]);
            await client.query(
              `INSERT INTO b_balances VALUES ($1, $2, $3, $4) ON CONFLICT (tenant_id, member_id, currency)
               DO UPDATE SET pending_kopecks = b_balances.pending_kopecks + EXCLUDED.pending_kopecks`,
              [tenantId, upline[i], body.currency, amount],
            );
            await client.query(`INSERT INTO b_events VALUES ($1, $2, 'bonus.created', $3)`, [
              tenantId,
              `evt_${randomBytes(10).toString('hex')}`,
              JSON.stringify({ bonus_id: bonus }),
            ]);
          }
          await client.query('COMMIT');
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id }));
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          res.writeHead(500).end(String(error));
        } finally {
          client.release();
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.close();
      await pool.end();
    },
  };
}

runBenchmark(
  { name: 'writes' },
  async ({ databaseUrl, adminToken, runId, log, startApp, onCleanup }) => {
    const { base } = await startApp();
    const tenant = await postJson(
      base,
      '/admin/v1/tenants',
      { authorization: `Bearer ${adminToken}` },
      {
        slug: `bench-${randomBytes(4).toString('hex')}`,
        display_name: 'Bench',
        allowed_origins: ['https://bench.example'],
        program: { tiers: TIERS },
      },
    );
    const fed = (url: string, path: string, body: unknown) =>
      postJson(url, path, { 'x-service-tenant-key': tenant.tenant_key as string }, body);
    // A chain of three: every conversion pays all three tiers.
    const chain: Record<string, unknown>[] = [];
    for (let i = 0; i < 3; i++) {
      chain.push(
        await fed(base, '/federation/v1/users/upsert', {
          external_id: `bench-${i}`,
          ...(i ? { referrer_user_id: chain[i - 1].service_user_id } : {}),
        }),
      );
    }
    const referrer = chain[2];
    const leads: string[] = [];
    for (let i = 0; i < CLIENTS; i++) {
      const lead = await fed(base, '/federation/v1/leads', {
        referrer_user_id: referrer.service_user_id,
        contact: { name: `Lead ${i}`, email: `lead${i}@example.org` },
      });
      leads.push(lead.lead_id as string);
    }
    const upline = [2, 1, 0].map((i) => chain[i].tenant_service_id as string);
    const baseline = await startBaseline(databaseUrl, tenant.org_id as string, upline);
    onCleanup(() => baseline.close());
    log(`tenant, a chain of 3 and ${leads.length} leads ready; ${CLIENTS} clients`);

    let order = 0;
    const register = (url: string) => (i: number) =>
      fed(url, '/federation/v1/conversions/register', {
        lead_id: leads[i % leads.length],
        amount_kopecks: 100_000,
        currency: 'RUB',
        external_order_id: `w-${order++}`,
      });
    await drive(WARMUP, register(base));
    await drive(WARMUP, register(baseline.base));
    const rounds: { service: number; baseline: number }[] = [];
    for (let r = 0; r < 3; r++) {
      const service = await drive(REQUESTS / 3, register(base));
      const hand = await drive(REQUESTS / 3, register(baseline.base));
      rounds.push({ service, baseline: hand });
      log(`round ${r + 1}: service ${service.toFixed(0)}/s, baseline ${hand.toFixed(0)}/s`);
    }
    const ratios = rounds.map((r) => r.service / r.baseline).sort((a, b) => a - b);
    const ratio = ratios[1];

    // The same writes through separate API processes: one, then two behind a round robin.
    const env = {
      ...testEnv(),
      DATABASE_URL: databaseUrl,
      REDIS_URL: BENCH_REDIS_URL,
      QUEUE_PREFIX: `bench_${runId}`,
      ADMIN_TOKEN: adminToken,
      LOG_LEVEL: 'silent',
      PROCESS_ROLE: 'api',
    };
    onCleanup(() => stopAllChildren());
    const ports = [await scalePort(), await scalePort()];
    const bases = ports.map((port) => `http://127.0.0.1:${port}`);
    await Promise.all(
      ports.map((port, i) =>
        untilReady(bases[i], spawnService(`api ${i}`, { ...env, PORT: `${port}` })),
      ),
    );
    await drive(WARMUP, (i) => register(bases[i % 2])(i));
    const oneProcess = await drive(REQUESTS / 3, register(bases[0]));
    const twoProcesses = await drive(REQUESTS / 3, (i) => register(bases[i % 2])(i));
    log(`1 process ${oneProcess.toFixed(0)}/s, 2 processes ${twoProcesses.toFixed(0)}/s`);
    process.stdout.write(
      [
        '',
        `machine: ${machineLine()}`,
        `POST /federation/v1/conversions/register, ${CLIENTS} concurrent clients, 3 tiers paid:`,
        ...rounds.map(
          (r, i) =>
            `  round ${i + 1}: service ${r.service.toFixed(0)}/s  baseline (node:http + pg, one transaction) ${r.baseline.toFixed(0)}/s  ratio ${(r.service / r.baseline).toFixed(2)}`,
        ),
        `service ÷ baseline (median of 3 rounds): ${ratio.toFixed(2)}  target ≥ ${TARGET_RATIO}  ${verdict(ratio >= TARGET_RATIO)}`,
        `API processes of their own (no target; ${os.cpus().length} cores shared with PostgreSQL and the clients): ` +
          `1 process ${oneProcess.toFixed(0)}/s, 2 processes ${twoProcesses.toFixed(0)}/s, scaling ×${(twoProcesses / oneProcess).toFixed(2)}`,
        '',
      ].join('\n'),
    );
  },
);
