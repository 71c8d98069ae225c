import { federation } from '../../factories/fraud.factory';
import { createStaffToken, createTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { orgCsrf, orgSignIn } from '../../utils/pages-http';

/** docs/fraud.md, "What staff see": the review queue on the bonuses page, each signal in words. */
jest.setTimeout(60_000);

describe('fraud: the review queue on the bonuses page', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('lists the flagged pending bonuses with their signals, and only them', async () => {
    // An English tenant: the queue speaks English (a Russian one names each signal in Russian).
    const tenant = await createTenant(t, {
      locale: 'en-US',
      program: { lead_bonus_kopecks: 900 },
    });
    const partner = await upsertUser(t, tenant.key);
    for (const email of ['honest@gmail.com', 'burner@mailinator.com']) {
      await federation(t, tenant, '/federation/v1/leads', {
        referrer_user_id: partner.serviceUserId,
        contact: { name: 'C', email },
      });
    }
    const cookie = await orgSignIn(t.http, await createStaffToken(t, tenant.slug, 'manager'));
    const all = await t.http().get(`/org/${tenant.slug}/bonuses`).set('Cookie', cookie);
    expect(all.status).toBe(200);
    expect(all.text).toContain('data-link="review-queue"');

    const queue = await t
      .http()
      .get(`/org/${tenant.slug}/bonuses?status=pending&review=flagged`)
      .set('Cookie', cookie);
    expect(queue.status).toBe(200);
    expect(queue.text).toContain('data-review="flagged"');
    expect(queue.text).toContain('disposable_email');
    expect(queue.text).toContain('burner@mailinator.com is at a disposable-mail domain');
    expect(queue.text.match(/data-action="approve"/g)).toHaveLength(1);

    // In Russian (?lang=ru) the signal is named in Russian, its stored sentence kept beside it.
    const ru = await t
      .http()
      .get(`/org/${tenant.slug}/bonuses?status=pending&review=flagged&lang=ru`)
      .set('Cookie', cookie);
    expect(ru.text).toContain('<html lang="ru">');
    expect(ru.text).toContain('одноразовый адрес почты: <span lang="en">');
    expect(ru.text).toContain('Одобрить');
    expect(ru.text).toContain('aria-current="page">Бонусы</a>');

    // Approving from the review queue comes back to the review queue, saying so in Russian.
    const id = /bonuses\/(bns_[^/"]+)\/approve/.exec(queue.text)![1];
    const back = /name="back" value="([^"]*)"/.exec(queue.text)![1].replace(/&amp;/g, '&');
    expect(back).toBe('status=pending&review=flagged&page=1');
    const approved = await t
      .http()
      .post(`/org/${tenant.slug}/bonuses/${id}/approve`)
      .set('Cookie', cookie)
      .set('Origin', 'http://localhost:3000')
      .type('form')
      .send({ _csrf: await orgCsrf(t.http, cookie, tenant.slug), back });
    expect(approved.status).toBe(303);
    expect(approved.headers.location).toBe(
      `/org/${tenant.slug}/bonuses?status=pending&review=flagged&page=1&approved=${id}`,
    );
    const after = await t.http().get(`${approved.headers.location}&lang=ru`).set('Cookie', cookie);
    expect(after.text).toContain(`Бонус ${id} одобрен.`);
    expect(after.text).not.toContain('data-action="approve"');
  });
});
