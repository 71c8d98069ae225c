import type { ComponentChildren } from 'preact';
import type { Request } from 'express';
import type { PageSecurity } from '../common/http/page-security';
import type { HtmlPage } from '../common/pages/page';
import { type FrameLang, framedPage, frameCtx, type PageFrame } from '../pages/layout';
import { TEXTS, type Texts } from './console.i18n';

/**
 * The console in the page frame (pages/layout.tsx): its areas in the navigation, its language
 * cookie under /org and the sign-out of the organisation pages' session.
 */
export interface ConsoleFrame extends PageFrame {
  tenant: PageFrame['tenant'] & { slug: string };
}

export type ConsoleLang = FrameLang<Texts>;

/** The console context of a request: its language from `?lang=`, the session's, or the tenant's. */
export function consoleCtx<C extends ConsoleFrame>(
  ctx: C,
  req: Request,
  security: PageSecurity,
): C & ConsoleLang {
  return frameCtx(ctx, req, security, '/org', TEXTS);
}

type Area =
  | 'overview'
  | 'partners'
  | 'applications'
  | 'conversions'
  | 'leads'
  | 'payouts'
  | 'program'
  | 'bounties'
  | 'bonuses'
  | 'notifications'
  | 'integration'
  | 'audit-log';

export interface ConsolePageOptions {
  title: string;
  area?: Area;
  notice?: string;
  error?: string;
  status?: number;
  /** A script of the page's own (a module constant), run under the response's nonce. */
  script?: string;
}

/** A console page: the frame with the console's areas, the one of `area` marked current. */
export function consolePage(
  ctx: ConsoleFrame & ConsoleLang,
  options: ConsolePageOptions,
  body: ComponentChildren,
): HtmlPage {
  const { t } = ctx.fmt;
  const org = `/org/${ctx.tenant.slug}`;
  const areas: [string, string, Area][] = [
    [org, t.overview, 'overview'],
    [`${org}/partners`, t.partners, 'partners'],
    [`${org}/applications`, t.applications, 'applications'],
    [`${org}/conversions`, t.conversions, 'conversions'],
    [`${org}/leads`, t.leads, 'leads'],
    [`${org}/program`, t.program, 'program'],
    [`${org}/bounties`, t.bounties, 'bounties'],
    [`${org}/payouts`, t.payouts, 'payouts'],
    [`${org}/bonuses`, t.bonuses, 'bonuses'],
    [`${org}/notifications`, t.notifications, 'notifications'],
    [`${org}/integration`, t.integration, 'integration'],
    [`${org}/audit-log`, t.auditLog, 'audit-log'],
  ];
  const { area, ...rest } = options;
  const nav = areas.map(([href, label, a]) => ({ href, label, current: a === area }));
  return framedPage(ctx, { ...rest, nav, signOut: '/org/sign-out' }, body);
}
