import { HousekeepingService } from '../../../src/housekeeping/housekeeping.service';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser, UpsertedMember } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';

/**
 * Retention (docs/webhooks.md: events are kept for 30 days) and the clean-up of expired credentials. Rows
 * are written straight into PostgreSQL with the ages under test, then one housekeeping run.
 */
describe('housekeeping', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let member: UpsertedMember;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    member = await upsertUser(t, tenant.key, { full_name: 'Kept' });
  });
  afterAll(() => t.close());

  const event = async (
    id: string,
    ageDays: number,
    delivery?: 'delivered' | 'dead' | 'pending',
  ) => {
    await t.db.query(
      `INSERT INTO events (tenant_id, id, event_type, occurred_at, body)
       VALUES ($1, $2, 'lead.created', now() - make_interval(days => $3), '{}')`,
      [tenant.orgId, id, ageDays],
    );
    if (!delivery) return;
    await t.db.query(
      `INSERT INTO webhook_deliveries (tenant_id, event_id, event_type, status, attempts, next_attempt_at)
       VALUES ($1, $2, 'lead.created', $3, 1, CASE WHEN $3 = 'pending' THEN now() + interval '1 day' END)`,
      [tenant.orgId, id, delivery],
    );
    await t.db.query(
      `INSERT INTO webhook_attempts (tenant_id, event_id, attempt, at, status_code, duration_ms)
       VALUES ($1, $2, 1, now() - make_interval(days => $3), 500, 12)`,
      [tenant.orgId, id, ageDays],
    );
  };
  const exists = async (table: string, where: string, params: unknown[]) =>
    ((await t.db.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, params))[0]
      .n as number) > 0;

  it("runs the retention jobs the features declare, the outbox's events after webhooks' deliveries", () => {
    expect(t.app.get(HousekeepingService).jobNames()).toEqual([
      'adminSessions',
      'conversionClientData',
      'idempotencyKeys',
      'leadClientData',
      'notificationScans',
      'signIn',
      'webhookDeliveries',
      'events',
    ]);
  });

  it('deletes events past retention with their deliveries and attempts, unless one is pending', async () => {
    await event('evt_old_delivered', 31, 'delivered');
    await event('evt_old_dead', 45, 'dead');
    await event('evt_old_no_delivery', 90);
    await event('evt_old_pending', 31, 'pending');
    await event('evt_recent', 29, 'delivered');

    await t.app.get(HousekeepingService).run();

    const keptEvent = async (id: string) => ({
      id,
      event: await exists('events', 'tenant_id = $1 AND id = $2', [tenant.orgId, id]),
      delivery: await exists('webhook_deliveries', 'tenant_id = $1 AND event_id = $2', [
        tenant.orgId,
        id,
      ]),
      attempts: await exists('webhook_attempts', 'tenant_id = $1 AND event_id = $2', [
        tenant.orgId,
        id,
      ]),
    });
    expect(await keptEvent('evt_old_delivered')).toEqual({
      id: 'evt_old_delivered',
      event: false,
      delivery: false,
      attempts: false,
    });
    expect(await keptEvent('evt_old_dead')).toEqual({
      id: 'evt_old_dead',
      event: false,
      delivery: false,
      attempts: false,
    });
    expect((await keptEvent('evt_old_no_delivery')).event).toBe(false);
    expect(await keptEvent('evt_old_pending')).toEqual({
      id: 'evt_old_pending',
      event: true,
      delivery: true,
      attempts: true,
    });
    expect(await keptEvent('evt_recent')).toEqual({
      id: 'evt_recent',
      event: true,
      delivery: true,
      attempts: true,
    });

    // A second run finds nothing more to do.
    const again = await t.app.get(HousekeepingService).run();
    expect({ events: again.events, deliveries: again.webhookDeliveries }).toEqual({
      events: 0,
      deliveries: 0,
    });
  });

  it('deletes expired sessions, consent tokens, admin sessions, idempotency keys and old sign-in codes', async () => {
    const past = `now() - interval '1 minute'`;
    const future = `now() + interval '1 hour'`;
    for (const [suffix, when] of [
      ['expired', past],
      ['live', future],
    ]) {
      await t.db.query(
        `INSERT INTO sessions (token_hash, tenant_id, member_id, expires_at) VALUES ($1, $2, $3, ${when})`,
        [`sess_${suffix}`, tenant.orgId, member.memberId],
      );
      await t.db.query(
        `INSERT INTO consent_tokens (tenant_id, token_hash, session_hash, expires_at)
         VALUES ($1, $2, 'x', ${when})`,
        [tenant.orgId, `consent_${suffix}`],
      );
      await t.db.query(
        `INSERT INTO admin_sessions (token_hash, actor_type, csrf, expires_at) VALUES ($1, 'platform', 'c', ${when})`,
        [`admin_${suffix}`],
      );
      await t.db.query(
        `INSERT INTO idempotency_keys (tenant_id, path, key, request_hash, response_status, response_body, expires_at)
         VALUES ($1, '/p', $2, 'h', 200, '{}', ${when})`,
        [tenant.orgId, `idem_${suffix}`],
      );
    }
    // Sign-in codes count towards the hourly limit: kept a day past expiry.
    for (const [id, expiresAt] of [
      ['sic_old', `now() - interval '2 days'`],
      ['sic_recent', past],
    ]) {
      await t.db.query(
        `INSERT INTO sign_in_codes (tenant_id, id, email, member_id, code_hash, expires_at)
         VALUES ($1, $2, 'a@example.org', $3, 'h', ${expiresAt})`,
        [tenant.orgId, id, member.memberId],
      );
    }

    await t.app.get(HousekeepingService).run();
    for (const [table, column, prefix] of [
      ['sessions', 'token_hash', 'sess'],
      ['consent_tokens', 'token_hash', 'consent'],
      ['admin_sessions', 'token_hash', 'admin'],
      ['idempotency_keys', 'key', 'idem'],
    ]) {
      expect({
        table,
        expired: await exists(table, `${column} = $1`, [`${prefix}_expired`]),
      }).toEqual({ table, expired: false });
      expect({ table, live: await exists(table, `${column} = $1`, [`${prefix}_live`]) }).toEqual({
        table,
        live: true,
      });
    }
    expect(await exists('sign_in_codes', 'id = $1', ['sic_old'])).toBe(false);
    expect(await exists('sign_in_codes', 'id = $1', ['sic_recent'])).toBe(true);
  });
});
