import { Agent, request as httpRequest } from 'node:http';
import { createLead, eventsOf, registerConversion } from '../../factories/money.factory';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { freePort, ManagedChild, spawnService, stopAllChildren } from '../../utils/processes';
import { testEnv } from '../../utils/test-env';

/**
 * docs/money.md (idempotency): idempotency that survives a crash. A real API process gets a burst of keyed
 * requests on every keyed Federation route, is SIGKILLed while they are in flight, and is started
 * again; every client then retries with the same key and body until it gets an answer. Nothing
 * may happen twice, and every retry must be answered as the first request would have been.
 */
jest.setTimeout(180_000);

interface Answer {
  status: number;
  text: string;
  replayed: boolean;
}

interface Call {
  route: string;
  path: string;
  key: string;
  body: Record<string, unknown>;
  first?: Answer;
  final?: Answer;
}

/** Requests in the burst, per route; 150 in flight in all. */
const PER_ROUTE = 30;

describe('Idempotency-Key across a SIGKILL of the API process', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let port: number;
  let api: ManagedChild | undefined;
  const agent = new Agent({ keepAlive: true, maxSockets: 200 });

  const startApi = async (name: string) => {
    const child = spawnService(name, {
      ...testEnv(),
      PORT: String(port),
      PROCESS_ROLE: 'api',
      LOG_LEVEL: 'info',
    });
    await child.waitForOutput(/Listening on/, 60_000, "'Listening on'");
    return child;
  };

  const send = (call: Call): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const payload = JSON.stringify(call.body);
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: call.path,
          agent,
          headers: {
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(payload),
            'X-Service-Tenant-Key': tenant.key,
            'Idempotency-Key': call.key,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              text: Buffer.concat(chunks).toString('utf8'),
              replayed: res.headers['idempotent-replayed'] === 'true',
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });

  beforeAll(async () => {
    t = await createTestApp();
    port = await freePort();
  });
  afterAll(async () => {
    agent.destroy();
    await stopAllChildren();
    await t.close();
  });

  it('after a crash mid-burst, retries find the committed answer or no effect: nothing twice', async () => {
    tenant = await createTenant(t);
    const referrer = await upsertUser(t, tenant.key);
    // Leads to move, and conversions to register and to reverse, made before the burst.
    const statusLeads = await Promise.all(
      Array.from({ length: PER_ROUTE }, () => createLead(t, tenant.key, referrer.serviceUserId)),
    );
    const convertLeads = await Promise.all(
      Array.from({ length: PER_ROUTE }, () => createLead(t, tenant.key, referrer.serviceUserId)),
    );
    const toReverse: string[] = [];
    for (let i = 0; i < PER_ROUTE; i++) {
      const leadId = await createLead(t, tenant.key, referrer.serviceUserId);
      const c = await registerConversion(t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 10_000,
        external_order_id: `pre-${i}`,
      });
      toReverse.push(c.conversion_id);
    }

    const calls: Call[] = [];
    for (let i = 0; i < PER_ROUTE; i++) {
      calls.push(
        {
          route: 'users/upsert',
          path: '/federation/v1/users/upsert',
          key: `u-${i}`,
          body: { external_id: `crash-user-${i}`, referrer_user_id: referrer.serviceUserId },
        },
        {
          route: 'leads',
          path: '/federation/v1/leads',
          key: `l-${i}`,
          body: {
            referrer_user_id: referrer.serviceUserId,
            contact: { name: `Crash lead ${i}`, email: `crash-${i}@example.org` },
          },
        },
        {
          route: 'leads/:id/status',
          path: `/federation/v1/leads/${statusLeads[i]}/status`,
          key: `s-${i}`,
          body: { status: 'processed' },
        },
        {
          route: 'conversions/register',
          path: '/federation/v1/conversions/register',
          key: `c-${i}`,
          body: {
            lead_id: convertLeads[i],
            amount_kopecks: 20_000,
            currency: 'RUB',
            external_order_id: `crash-order-${i}`,
          },
        },
        {
          route: 'conversions/:id/reverse',
          path: `/federation/v1/conversions/${toReverse[i]}/reverse`,
          key: `r-${i}`,
          body: { reason: 'refund' },
        },
      );
    }

    api = await startApi('api-1');
    // The burst: every request in flight at once; the process dies when a third have answered.
    let answered = 0;
    let killed = false;
    const kill = () => {
      if (killed) return;
      killed = true;
      api!.signal('SIGKILL');
    };
    const firstTries = calls.map((call) =>
      send(call).then(
        (answer) => {
          if (!killed) call.first = answer;
          if (++answered >= calls.length / 3) kill();
        },
        () => undefined, // the connection died with the process
      ),
    );
    await Promise.all(firstTries);
    kill();
    await api.kill();

    api = await startApi('api-2');
    for (const call of calls) {
      // A key still held by a transaction of the dead process is free once PostgreSQL has seen
      // the connection go: retry a 409 idempotency_key_in_use shortly, as a client would.
      for (let attempt = 0; ; attempt++) {
        const answer = await send(call);
        if (answer.status === 409 && answer.text.includes('idempotency_key_in_use')) {
          expect(attempt).toBeLessThan(50);
          await new Promise((r) => setTimeout(r, 200));
          continue;
        }
        call.final = answer;
        break;
      }
    }
    await api.stop();

    // Every retry: a success, and where the first answer arrived, those very bytes again.
    interface Row {
      sent: number;
      answered_before_kill: number;
      committed_unanswered: number;
      executed_on_retry: number;
    }
    const table: Record<string, Row> = {};
    for (const call of calls) {
      const row = (table[call.route] ??= {
        sent: 0,
        answered_before_kill: 0,
        committed_unanswered: 0,
        executed_on_retry: 0,
      });
      row.sent++;
      expect({ route: call.route, status: call.final!.status, body: call.final!.text }).toEqual({
        route: call.route,
        status: 200,
        body: call.final!.text,
      });
      if (call.first) {
        row.answered_before_kill++;
        expect(call.first.status).toBe(200);
        expect(call.final!.replayed).toBe(true);
        expect(call.final!.text).toBe(call.first.text);
      } else if (call.final!.replayed) row.committed_unanswered++;
      else row.executed_on_retry++;
    }

    // Effects, from the database: each exactly once.
    const count = async (sql: string): Promise<number> =>
      (await t.db.query(sql, [tenant.orgId]))[0].n as number;
    expect(
      await count(
        `SELECT count(*)::int AS n FROM members WHERE tenant_id = $1 AND external_id LIKE 'crash-user-%'`,
      ),
    ).toBe(PER_ROUTE);
    expect(
      await count(
        `SELECT count(*)::int AS n FROM leads WHERE tenant_id = $1 AND contact_name LIKE 'Crash lead %'`,
      ),
    ).toBe(PER_ROUTE);
    const leadEvents = (await eventsOf(t, tenant.orgId, 'lead.created')).filter((e) =>
      String((e.payload.contact as { name?: string } | undefined)?.name ?? '').startsWith(
        'Crash lead',
      ),
    );
    expect(leadEvents).toHaveLength(PER_ROUTE);
    expect(
      await count(
        `SELECT count(*)::int AS n FROM conversions WHERE tenant_id = $1 AND external_order_id LIKE 'crash-order-%'`,
      ),
    ).toBe(PER_ROUTE);
    const cascaded = await eventsOf(t, tenant.orgId, 'conversion.cascaded');
    expect(cascaded).toHaveLength(2 * PER_ROUTE); // the pre-registered ones and the burst's
    expect(new Set(cascaded.map((e) => e.payload.conversion_id)).size).toBe(2 * PER_ROUTE);
    const reversed = await eventsOf(t, tenant.orgId, 'conversion.reversed');
    expect(reversed).toHaveLength(PER_ROUTE);
    expect(new Set(reversed.map((e) => e.payload.conversion_id)).size).toBe(PER_ROUTE);
    const rows = Object.entries(table).map(([route, r]) => ({ route, ...r }));
    const sum = (k: keyof Row) => rows.reduce((s, r) => s + r[k], 0);
    process.stdout.write(
      `\nIdempotency crash run (${calls.length} keyed requests, SIGKILL mid-burst):\n` +
        rows
          .map(
            (r) =>
              `  ${r.route.padEnd(26)} sent ${r.sent}, answered before the kill ${r.answered_before_kill}, ` +
              `committed but unanswered ${r.committed_unanswered}, executed on retry ${r.executed_on_retry}`,
          )
          .join('\n') +
        `\n  duplicated effects: 0; retries answered as the first: ${sum('answered_before_kill')}/` +
        `${sum('answered_before_kill')}\n`,
    );
  });
});
