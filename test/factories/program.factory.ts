import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import type { TestApp } from '../utils/create-test-app';
import { admin } from './payouts.factory';
import { createStaffToken, createTenant, type TestTenant } from './tenants.factory';

/**
 * What the console program editor's browser tests (test/e2e/console/console-program-editor*.ts)
 * share: a tenant with a token of each role, the Admin API's view of its program and groups, and
 * screenshots (to docs/images/ for the `doc-` ones when PROGRAM_DOC_SHOTS=1).
 */

/** A program of every SPEC 15 rule: three phases, an upline's qualification, compression. */
export const PHASED = {
  lead_bonus_kopecks: 5000,
  grace_period_hours: 72,
  compression: true,
  phases: [
    {
      months: 12,
      tiers: [
        { tier: 'referrer', percent_bp: 2500 },
        {
          tier: 'upline_1',
          percent_bp: 500,
          qualify: { min_personal_sales_kopecks: 5_000_000, window_days: 30 },
        },
      ],
    },
    { conversions: 3, tiers: [{ tier: 'referrer', fixed_kopecks: 150_000 }] },
    {
      tiers: [
        { tier: 'referrer', percent_bp: 1000 },
        { tier: 'upline_1', percent_bp: 300 },
      ],
    },
  ],
};

export interface ProgramSeed {
  org: TestTenant;
  owner: string;
  manager: string;
  viewer: string;
}

const SHOTS = process.env.CONSOLE_SHOTS ?? '/tmp/console-shots-program';
const DOC_IMAGES = resolve(__dirname, '..', '..', 'docs', 'images');

/** The helpers, over the suite's app (`app()` is called when they run). */
export function programEditorKit(app: () => TestApp) {
  return {
    async seed(): Promise<ProgramSeed> {
      const t = app();
      const org = await createTenant(t, { locale: 'ru-RU', display_name: 'Магазин Ромашка' });
      return {
        org,
        owner: await createStaffToken(t, org.slug, 'owner'),
        manager: await createStaffToken(t, org.slug, 'manager'),
        viewer: await createStaffToken(t, org.slug, 'viewer'),
      };
    },
    async tenantProgram(d: ProgramSeed) {
      const res = await app().http().get(`/admin/v1/tenants/${d.org.slug}`).set(admin(app()));
      return res.body.program;
    },
    async createGroup(d: ProgramSeed, slug: string, name: string, extra: object = {}) {
      const res = await app()
        .http()
        .post(`/admin/v1/tenants/${d.org.slug}/groups`)
        .set(admin(app()))
        .send({ slug, name, ...extra });
      if (res.status !== 201) throw new Error(`createGroup: ${res.status} ${res.text}`);
      return res.body.group_id as string;
    },
    async group(d: ProgramSeed, id: string) {
      const res = await app()
        .http()
        .get(`/admin/v1/tenants/${d.org.slug}/groups/${id}`)
        .set(admin(app()));
      return res.body;
    },
    async shot(page: Page, name: string) {
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
      if (process.env.PROGRAM_DOC_SHOTS === '1' && name.startsWith('doc-')) {
        await page.screenshot({ path: `${DOC_IMAGES}/${name.slice(4)}.png`, fullPage: true });
      }
    },
  };
}
