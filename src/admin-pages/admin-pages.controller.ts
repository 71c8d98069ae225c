import {
  Body,
  Controller,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import type { Request, Response } from 'express';
import { AuditService } from '../audit/audit.service';
import { BonusesService } from '../bonuses/bonuses.service';
import { ListBonusesQueryDto } from '../bonuses/dto/bonus-requests.dto';
import { type Actor, roleAllows, type StaffRole } from '../common/auth/actor';
import { AUTH_LOOKUP, type AuthLookup } from '../common/auth/auth-lookup';
import { Public } from '../common/auth/auth.decorators';
import { DomainError } from '../common/errors/domain-error';
import { flattenValidationErrors } from '../common/errors/validation';
import { sendPage } from '../common/http/html';
import { SingleQueryValues } from '../common/http/single-query-values.pipe';
import { formField, PageSecurity, sameSecret } from '../common/http/page-security';
import { formatMoney, uiLocale } from '../common/i18n/format';
import { EVENT_TYPES } from '../events/event-types';
import { UpdateTenantDto } from '../tenants/dto/update-tenant.dto';
import { TenantCredentialsService } from '../tenants/tenant-credentials.service';
import type { TenantEntity } from '../tenants/tenant.entity';
import { TenantsService } from '../tenants/tenants.service';
import { PutWebhookDto } from '../webhooks/dto/webhook.dto';
import { WebhooksService } from '../webhooks/webhooks.service';
import { ADMIN_SESSION_TTL_MS, AdminSessionsService } from './admin-sessions.service';
import { OrgDocs } from './admin-pages.openapi';
import { adminPage, csrfField, e, pager, postButton, shownOnce, table } from './views';

export const ADMIN_COOKIE = 'svc_admin';
const MAX_BULK = 100;

interface PageContext {
  actor: Actor;
  tenant: TenantEntity;
  csrf: string;
  who: string;
  can: (role: StaffRole) => boolean;
}

/**
 * The organisation's admin pages (seed 4.5 and 6, SPEC 8): server-rendered HTML over the same
 * services as the admin API, plain form posts with a `_csrf` field, readable and usable without
 * JavaScript. Sessions come from staff tokens (or the platform token); roles are the admin API's.
 */
@ApiTags('admin-pages')
@Controller('org')
@Public()
export class AdminPagesController {
  constructor(
    private readonly sessions: AdminSessionsService,
    private readonly tenants: TenantsService,
    private readonly credentials: TenantCredentialsService,
    private readonly webhooks: WebhooksService,
    private readonly bonuses: BonusesService,
    private readonly audit: AuditService,
    @Inject(AUTH_LOOKUP) private readonly lookup: AuthLookup,
    private readonly security: PageSecurity,
  ) {}

  // Sign-in and out

  @Get('sign-in')
  @OrgDocs.signInForm()
  signInForm(
    @Query('error') error: string | undefined,
    @Req() req: Request,
    @Res() res: Response,
  ): void {
    // The form's pre-session token (login CSRF): only this browser's own form can sign it in.
    const csrf = this.security.loginToken(req, res, '/org');
    sendPage(res, {
      title: 'Sign in — organisation admin',
      body: `<h1>Organisation admin</h1>
${error ? '<p class="error" role="alert">That token is not valid.</p>' : ''}
<form method="post" action="/org/sign-in" data-form="sign-in">${csrfField(csrf)}
<label for="token">Staff token (stf_…) or platform admin token</label>
<input id="token" name="token" type="password" autocomplete="off" required>
<button type="submit" data-action="submit">Sign in</button></form>`,
    });
  }

  @Post('sign-in')
  @HttpCode(303)
  @OrgDocs.signIn()
  async signIn(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (!this.security.checkLogin(req, '/org')) {
      return sendPage(res, {
        status: 403,
        title: 'Sign in again',
        body: `<h1>Sign in again</h1><p class="error">This sign-in form has expired or was not sent from this browser's own sign-in page.</p>
<p><a href="/org/sign-in">Open the sign-in page</a></p>`,
      });
    }
    const token = formField(req, 'token')?.trim() ?? '';
    const session = token ? await this.sessions.signIn(token) : undefined;
    if (!session) return res.redirect(303, '/org/sign-in?error=1');
    this.security.setCookie(res, ADMIN_COOKIE, session, '/org', ADMIN_SESSION_TTL_MS);
    res.redirect(303, '/org');
  }

  @Post('sign-out')
  @HttpCode(303)
  @OrgDocs.signOut()
  async signOut(@Req() req: Request, @Res() res: Response): Promise<void> {
    const principal = await this.sessions.resolve(this.cookie(req));
    if (principal && !sameSecret(formField(req, '_csrf'), principal.csrf)) {
      return sendPage(res, {
        status: 403,
        title: 'Not allowed',
        body: `<h1>Not allowed</h1><p class="error">The form has expired; reload the page and try again.</p><p><a href="/org">Back</a></p>`,
      });
    }
    if (principal) await this.sessions.signOut(this.cookie(req));
    this.security.clearCookie(res, ADMIN_COOKIE, '/org');
    res.redirect(303, '/org/sign-in');
  }

  /** Staff land on their organisation; the platform admin chooses one. */
  @Get()
  @OrgDocs.home()
  async home(
    @Query('slug') slug: string | undefined,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const principal = await this.sessions.resolve(this.cookie(req));
    if (!principal) return res.redirect(303, '/org/sign-in');
    if (principal.tenant) return res.redirect(303, `/org/${principal.tenant.slug}/bonuses`);
    if (slug && /^[a-z0-9][a-z0-9-]{1,62}$/.test(slug))
      return res.redirect(303, `/org/${slug}/integration`);
    sendPage(res, {
      title: 'Organisations',
      body: `<h1>Open an organisation</h1><form method="get" action="/org">
<label for="slug">Slug</label><input id="slug" name="slug" required pattern="[a-z0-9][a-z0-9-]{1,62}">
<button type="submit" data-action="submit">Open</button></form>
<form method="post" action="/org/sign-out">${csrfField(principal.csrf)}<button type="submit">Sign out</button></form>`,
    });
  }

  // Integration settings

  @Get(':slug/integration')
  @OrgDocs.integration()
  async integration(
    @Param('slug') slug: string,
    @Query(SingleQueryValues) query: Record<string, string>,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const ctx = await this.context(req, res, slug, 'viewer');
    if (ctx) await this.renderIntegration(res, ctx, { notice: query.notice, error: query.error });
  }

  @Post(':slug/integration/settings')
  @HttpCode(303)
  @OrgDocs.saveSettings()
  async saveSettings(
    @Param('slug') slug: string,
    @Body() body: Record<string, unknown>,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    const ctx = await this.context(req, res, slug, 'owner');
    if (!ctx) return;
    const dto = plainToInstance(UpdateTenantDto, {
      allowed_origins: lines(body.allowed_origins),
      link_domains: lines(body.link_domains),
    });
    const errors = flattenValidationErrors(
      validateSync(dto, { whitelist: true, forbidNonWhitelisted: true }),
    );
    if (errors.length) {
      return this.back(res, slug, 'integration', {
        error: errors.map((x) => `${x.field}: ${x.message}`).join('; '),
      });
    }
    await this.run(res, slug, 'integration', 'Settings saved.', () =>
      this.tenants.update(ctx.tenant, dto, ctx.actor),
    );
  }

  @Post(':slug/integration/keys')
  @HttpCode(200)
  @OrgDocs.createKey()
  async createKey(
    @Param('slug') slug: string,
    @Body() body: Record<string, unknown>,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    const ctx = await this.context(req, res, slug, 'owner');
    if (!ctx) return;
    const name =
      typeof body.name === 'string' && body.name.trim()
        ? body.name.trim().slice(0, 200)
        : undefined;
    try {
      const key = await this.credentials.createKey(ctx.tenant.id, name, ctx.actor);
      await this.renderIntegration(res, ctx, {
        notice: 'Key created.',
        secret: shownOnce('new-key', `Tenant key ${key.name ?? key.key_id}`, key.tenant_key),
      });
    } catch (error) {
      this.back(res, slug, 'integration', { error: messageOf(error) });
    }
  }

  @Post(':slug/integration/keys/:key_id/revoke')
  @HttpCode(303)
  @OrgDocs.revokeKey()
  async revokeKey(
    @Param('slug') slug: string,
    @Param('key_id') keyId: string,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    const ctx = await this.context(req, res, slug, 'owner');
    if (ctx)
      await this.run(res, slug, 'integration', 'Key revoked.', () =>
        this.credentials.revokeKey(ctx.tenant.id, keyId, ctx.actor),
      );
  }

  @Post(':slug/integration/webhook')
  @HttpCode(200)
  @OrgDocs.saveWebhook()
  async saveWebhook(
    @Param('slug') slug: string,
    @Body() body: Record<string, unknown>,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    const ctx = await this.context(req, res, slug, 'owner');
    if (!ctx) return;
    const events = Array.isArray(body.events)
      ? body.events
      : body.events === undefined
        ? []
        : [body.events];
    const dto = plainToInstance(PutWebhookDto, {
      url: body.url,
      events,
      enabled: body.enabled === 'on',
    });
    const errors = flattenValidationErrors(
      validateSync(dto, { whitelist: true, forbidNonWhitelisted: true }),
    );
    if (errors.length) {
      return this.back(res, slug, 'integration', {
        error: errors.map((x) => `${x.field}: ${x.message}`).join('; '),
      });
    }
    try {
      const saved = await this.webhooks.put(ctx.tenant.id, dto, ctx.actor);
      await this.renderIntegration(res, ctx, {
        notice: 'Webhook saved.',
        secret: saved.secret
          ? shownOnce('new-secret', 'Webhook signing secret', saved.secret)
          : undefined,
      });
    } catch (error) {
      this.back(res, slug, 'integration', { error: messageOf(error) });
    }
  }

  @Post(':slug/integration/webhook/secret')
  @HttpCode(200)
  @OrgDocs.rotateSecret()
  async rotateSecret(@Param('slug') slug: string, @Req() req: Request, @Res() res: Response) {
    const ctx = await this.context(req, res, slug, 'owner');
    if (!ctx) return;
    try {
      const { secret } = await this.webhooks.rotateSecret(ctx.tenant.id, ctx.actor);
      await this.renderIntegration(res, ctx, {
        notice: 'Secret rotated; the previous one keeps signing for 24 hours.',
        secret: shownOnce('new-secret', 'New webhook signing secret', secret),
      });
    } catch (error) {
      this.back(res, slug, 'integration', { error: messageOf(error) });
    }
  }

  @Post(':slug/integration/webhook/test')
  @HttpCode(303)
  @OrgDocs.testWebhook()
  async testWebhook(@Param('slug') slug: string, @Req() req: Request, @Res() res: Response) {
    const ctx = await this.context(req, res, slug, 'owner');
    if (!ctx) return;
    try {
      const result = await this.webhooks.test(ctx.tenant.id, ctx.actor);
      this.back(
        res,
        slug,
        'integration',
        result.delivered
          ? { notice: `Test event ${result.event_id} delivered (HTTP ${result.status_code}).` }
          : {
              error: `Test event ${result.event_id} was not delivered (${result.status_code ?? 'no answer'}).`,
            },
      );
    } catch (error) {
      this.back(res, slug, 'integration', { error: messageOf(error) });
    }
  }

  @Get(':slug/webhook-events/:event_id')
  @OrgDocs.eventDetail()
  async eventDetail(
    @Param('slug') slug: string,
    @Param('event_id') eventId: string,
    @Query(SingleQueryValues) query: Record<string, string>,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    const ctx = await this.context(req, res, slug, 'viewer');
    if (!ctx) return;
    try {
      const detail = await this.webhooks.eventDetail(ctx.tenant.id, eventId);
      const replay =
        detail.status !== 'pending' && ctx.can('owner')
          ? postButton(`/org/${slug}/webhook-events/${eventId}/replay`, ctx.csrf, 'Replay')
          : '';
      adminPage(
        res,
        this.layout(ctx, `Event ${eventId}`, query),
        `<p>Status: <span class="badge">${e(detail.status)}</span> ${replay}</p>
<pre class="table">${e(JSON.stringify(detail.event, null, 2))}</pre>
<h2>Attempts</h2>${table(
          ['#', 'At', 'Status', 'Duration', 'Error', 'Answer'],
          detail.attempts.map((a) => [
            `${a.attempt}${a.replay ? ' (replay)' : ''}`,
            e(a.at),
            e(String(a.status_code ?? '—')),
            a.duration_ms === null ? e(a.state.replace('_', ' ')) : `${a.duration_ms} ms`,
            e(a.error ?? ''),
            `<code>${e((a.response_body ?? '').slice(0, 300))}</code>`,
          ]),
        )}`,
      );
    } catch (error) {
      adminPage(
        res,
        { ...this.layout(ctx, 'Event not found', query), status: 404, error: messageOf(error) },
        '',
      );
    }
  }

  @Post(':slug/webhook-events/:event_id/replay')
  @HttpCode(303)
  @OrgDocs.replay()
  async replay(
    @Param('slug') slug: string,
    @Param('event_id') eventId: string,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    const ctx = await this.context(req, res, slug, 'owner');
    if (ctx) {
      await this.run(
        res,
        slug,
        `webhook-events/${eventId}`,
        'Replay queued: one fresh attempt.',
        () => this.webhooks.replay(ctx.tenant.id, eventId, ctx.actor),
      );
    }
  }

  // Audit log

  @Get(':slug/audit-log')
  @OrgDocs.auditLog()
  async auditLog(
    @Param('slug') slug: string,
    @Query(SingleQueryValues) query: Record<string, string>,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    const ctx = await this.context(req, res, slug, 'viewer');
    if (!ctx) return;
    const page = positive(query.page);
    const action = /^[a-z_]+\.[a-z_]+$/.test(query.action ?? '') ? query.action : undefined;
    const log = await this.audit.list(ctx.tenant.id, { page, page_size: 50, action });
    const rows = log.items.map((entry) => [
      e(entry.at),
      `${e(entry.actor.name)} <span class="muted">(${e(entry.actor.type)})</span>`,
      entry.action === 'webhook.dead_lettered'
        ? `<strong>${e(entry.action)}</strong>`
        : e(entry.action),
      entry.target_type === 'event'
        ? `<a href="/org/${e(slug)}/webhook-events/${e(entry.target_id)}">${e(entry.target_id)}</a>`
        : `${e(entry.target_type)} ${e(entry.target_id)}`,
      `<code>${e(JSON.stringify(entry.details))}</code>`,
    ]);
    adminPage(
      res,
      this.layout(ctx, 'Audit log', query),
      `<form class="filters" method="get">
<label>Action <input name="action" value="${e(action ?? '')}" placeholder="webhook.dead_lettered"></label>
<button type="submit">Filter</button></form>
${table(
  ['At', 'Actor', 'Action', 'Target', 'Details'],
  rows,
  log.items.map((x) => (x.action === 'webhook.dead_lettered' ? 'dead' : '')),
)}
${pager(`/org/${slug}/audit-log`, { action }, page, log.pagination.total_pages)}`,
    );
  }

  // Bonus approval queue

  @Get(':slug/bonuses')
  @OrgDocs.bonusQueue()
  async bonusQueue(
    @Param('slug') slug: string,
    @Query(SingleQueryValues) query: Record<string, string>,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    const ctx = await this.context(req, res, slug, 'viewer');
    if (!ctx) return;
    const filters = {
      status: query.status || undefined,
      user_id: query.user_id || undefined,
      created_from: query.created_from || undefined,
      created_to: query.created_to || undefined,
    };
    const dto = plainToInstance(ListBonusesQueryDto, {
      ...filters,
      page: query.page || '1',
      page_size: '50',
    });
    const errors = flattenValidationErrors(validateSync(dto, { whitelist: true }));
    const layout = this.layout(ctx, 'Bonuses', query);
    if (errors.length) layout.error = errors.map((x) => `${x.field}: ${x.message}`).join('; ');
    const [list, totals] = await Promise.all([
      errors.length ? undefined : this.bonuses.list(ctx.tenant.id, dto),
      this.bonuses.totalsByStatus(ctx.tenant.id),
    ]);
    const manage = ctx.can('manager');
    const base = `/org/${slug}/bonuses`;
    const locale = uiLocale(undefined, ctx.tenant.locale);
    const rows = (list?.items ?? []).map((b) => [
      manage && b.status === 'pending'
        ? `<input type="checkbox" name="ids" value="${e(b.bonus_id)}" aria-label="Select ${e(b.bonus_id)}">`
        : '',
      `<code>${e(b.bonus_id)}</code>`,
      `<code>${e(b.user_id)}</code>`,
      e(formatMoney(b.amount_kopecks, b.currency, locale)),
      `<span class="badge">${e(b.status)}</span>`,
      e(`${b.source_type}${b.tier ? ` · ${b.tier}` : ''}`),
      e(b.created_at.slice(0, 16).replace('T', ' ')),
      manage && b.status === 'pending'
        ? `<button type="submit" formaction="${e(`${base}/${b.bonus_id}/approve`)}" data-action="approve">Approve</button>
<input name="reason_${e(b.bonus_id)}" placeholder="Reason" maxlength="500" aria-label="Reason for ${e(b.bonus_id)}">
<button type="submit" formaction="${e(`${base}/${b.bonus_id}/reject`)}" data-action="reject">Reject</button>`
        : e(b.reason ?? ''),
    ]);
    adminPage(
      res,
      layout,
      `<section><h2>Totals</h2>${table(
        ['Status', 'Count', 'Amount'],
        totals.map((t) => [
          e(t.status),
          String(t.count),
          e(formatMoney(t.amountKopecks, t.currency, locale)),
        ]),
      )}</section>
<form class="filters" method="get" action="${e(base)}">
<label>Status <select name="status"><option value="">any</option>${[
        'pending',
        'approved',
        'rejected',
        'reversed',
      ]
        .map((s) => `<option${filters.status === s ? ' selected' : ''}>${s}</option>`)
        .join('')}</select></label>
<label>User <input name="user_id" value="${e(filters.user_id ?? '')}" placeholder="usr_…"></label>
<label>From <input type="date" name="created_from" value="${e(filters.created_from ?? '')}"></label>
<label>To <input type="date" name="created_to" value="${e(filters.created_to ?? '')}"></label>
<button type="submit">Filter</button></form>
<form method="post" action="${e(`${base}/bulk`)}" data-form="bonuses">${csrfField(ctx.csrf)}
<button type="submit" disabled hidden aria-hidden="true" tabindex="-1"></button>
${table(['', 'Bonus', 'Partner', 'Amount', 'Status', 'Source', 'Created', ''], rows)}
${
  manage
    ? `<div class="filters"><label>Reason for rejection <input name="bulk_reason" maxlength="500"></label>
<button type="submit" name="action" value="approve" data-action="bulk-approve">Approve selected</button>
<button type="submit" name="action" value="reject" data-action="bulk-reject">Reject selected</button></div>`
    : ''
}
</form>${list ? pager(base, filters, list.pagination.page, list.pagination.total_pages) : ''}`,
    );
  }

  @Post(':slug/bonuses/:bonus_id/approve')
  @HttpCode(303)
  @OrgDocs.approve()
  async approve(
    @Param('slug') slug: string,
    @Param('bonus_id') bonusId: string,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    const ctx = await this.context(req, res, slug, 'manager');
    if (ctx)
      await this.run(res, slug, 'bonuses', `Bonus ${bonusId} approved.`, () =>
        this.bonuses.approve(ctx.tenant.id, bonusId, ctx.actor),
      );
  }

  @Post(':slug/bonuses/:bonus_id/reject')
  @HttpCode(303)
  @OrgDocs.reject()
  async reject(
    @Param('slug') slug: string,
    @Param('bonus_id') bonusId: string,
    @Body() body: Record<string, unknown>,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    const ctx = await this.context(req, res, slug, 'manager');
    if (!ctx) return;
    const reason = text(body[`reason_${bonusId}`]) ?? text(body.reason);
    if (!reason) return this.back(res, slug, 'bonuses', { error: 'A rejection needs a reason.' });
    await this.run(res, slug, 'bonuses', `Bonus ${bonusId} rejected.`, () =>
      this.bonuses.reject(ctx.tenant.id, bonusId, reason, ctx.actor),
    );
  }

  /** Up to 100 at once; each transition still happens once and emits its event once. */
  @Post(':slug/bonuses/bulk')
  @HttpCode(303)
  @OrgDocs.bulk()
  async bulk(
    @Param('slug') slug: string,
    @Body() body: Record<string, unknown>,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    const ctx = await this.context(req, res, slug, 'manager');
    if (!ctx) return;
    const ids = (
      Array.isArray(body.ids) ? body.ids : body.ids === undefined ? [] : [body.ids]
    ).filter((id): id is string => typeof id === 'string');
    const reason = text(body.bulk_reason);
    if (!ids.length)
      return this.back(res, slug, 'bonuses', { error: 'Select at least one bonus.' });
    if (ids.length > MAX_BULK)
      return this.back(res, slug, 'bonuses', { error: `Select at most ${MAX_BULK} bonuses.` });
    if (body.action === 'reject' && !reason)
      return this.back(res, slug, 'bonuses', { error: 'A rejection needs a reason.' });
    let done = 0;
    const failed: string[] = [];
    for (const id of ids) {
      try {
        if (body.action === 'reject')
          await this.bonuses.reject(ctx.tenant.id, id, reason!, ctx.actor);
        else await this.bonuses.approve(ctx.tenant.id, id, ctx.actor);
        done++;
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        failed.push(id);
      }
    }
    const verb = body.action === 'reject' ? 'Rejected' : 'Approved';
    this.back(
      res,
      slug,
      'bonuses',
      failed.length
        ? {
            notice: `${verb} ${done}.`,
            error: `${failed.length} were no longer pending: ${failed.join(', ')}`,
          }
        : { notice: `${verb} ${done}.` },
    );
  }

  // Helpers

  /**
   * The signed-in principal on this organisation with at least `role`, or a response already
   * sent: sign-in redirect, 404 (unknown organisation, platform only), 403 (another
   * organisation, a lower role, or a POST without the session's CSRF token). Every POST is
   * checked, whatever its body: one that was not a form has no `_csrf` and is refused.
   */
  private async context(
    req: Request,
    res: Response,
    slug: string,
    role: StaffRole,
  ): Promise<PageContext | undefined> {
    const principal = await this.sessions.resolve(this.cookie(req));
    if (!principal) {
      res.redirect(303, '/org/sign-in');
      return undefined;
    }
    const refuse = (status: number, message: string) => {
      sendPage(res, {
        status,
        title: 'Not allowed',
        body: `<h1>Not allowed</h1><p class="error">${e(message)}</p><p><a href="/org">Back</a></p>`,
      });
      return undefined;
    };
    let tenant: TenantEntity | null | undefined = principal.tenant;
    if (principal.actor.type === 'platform') {
      tenant = await this.lookup.tenantBySlug(slug);
      if (!tenant) return refuse(404, `No organisation "${slug}".`);
    } else if (!tenant || tenant.slug !== slug) {
      return refuse(403, 'Your token may not act on this organisation.');
    }
    const actor = principal.actor;
    const can = (r: StaffRole) =>
      actor.type === 'platform' || (actor.type === 'staff' && roleAllows(actor.role, r));
    if (!can(role)) return refuse(403, `This needs the ${role} role or higher.`);
    if (req.method !== 'GET' && !sameSecret(formField(req, '_csrf'), principal.csrf))
      return refuse(403, 'The form has expired; reload the page and try again.');
    const who = actor.type === 'staff' ? `${actor.name} · ${actor.role}` : 'platform admin';
    return { actor, tenant, csrf: principal.csrf, who, can };
  }

  private layout(ctx: PageContext, title: string, query: Record<string, string>) {
    return {
      slug: ctx.tenant.slug,
      csrf: ctx.csrf,
      title,
      who: ctx.who,
      notice: query.notice,
      error: query.error,
      copyScript: true,
    };
  }

  private async renderIntegration(
    res: Response,
    ctx: PageContext,
    extra: { notice?: string; error?: string; secret?: string },
  ) {
    const slug = ctx.tenant.slug;
    const owner = ctx.can('owner');
    // Tenant keys are owner-only, as in the Admin API (GET …/keys): not even listed for others.
    const [keys, endpoint, deliveries] = await Promise.all([
      owner ? this.credentials.listKeys(ctx.tenant.id) : undefined,
      this.webhooks.get(ctx.tenant.id).catch(() => undefined),
      this.webhooks.listEvents(ctx.tenant.id, { page: 1, page_size: 20 }),
    ]);
    const disabled = owner ? '' : ' disabled';
    const keyRows = (keys?.items ?? []).map((k) => [
      e(k.name ?? '—'),
      `<code>${e(k.key_hint)}…</code>`,
      e(k.created_at.slice(0, 16).replace('T', ' ')),
      k.revoked_at
        ? `revoked ${e(k.revoked_at.slice(0, 10))}`
        : postButton(`/org/${slug}/integration/keys/${k.key_id}/revoke`, ctx.csrf, 'Revoke'),
    ]);
    const deliveryRows = deliveries.items.map((d) => [
      `<a href="/org/${e(slug)}/webhook-events/${e(d.event_id)}">${e(d.event_id)}</a>`,
      e(d.event_type),
      `<span class="badge">${e(d.status)}</span>`,
      String(d.attempts),
      e(String(d.last_status_code ?? '—')),
      d.status === 'dead' && owner
        ? postButton(`/org/${slug}/webhook-events/${d.event_id}/replay`, ctx.csrf, 'Replay')
        : '',
    ]);
    adminPage(
      res,
      { ...this.layout(ctx, 'Integration', {}), notice: extra.notice, error: extra.error },
      `${extra.secret ?? ''}
<section><h2>Origins and link domains</h2>
<form method="post" action="/org/${e(slug)}/integration/settings" data-form="settings">${csrfField(ctx.csrf)}
<label for="allowed_origins">Allowed origins (one per line)</label><textarea id="allowed_origins" name="allowed_origins"${disabled}>${e(ctx.tenant.allowedOrigins.join('\n'))}</textarea>
<label for="link_domains">Link domains (one per line)</label><textarea id="link_domains" name="link_domains"${disabled}>${e(ctx.tenant.linkDomains.join('\n'))}</textarea>
${owner ? '<button type="submit" data-action="save-settings">Save</button>' : ''}</form></section>
${
  owner
    ? `<section><h2>Tenant keys</h2>${table(['Name', 'Key', 'Created', ''], keyRows)}
<form method="post" action="/org/${e(slug)}/integration/keys" data-form="create-key">${csrfField(ctx.csrf)}
<label for="key-name">New key name</label><input id="key-name" name="name" maxlength="200"><button type="submit" data-action="create-key">Create key</button></form></section>`
    : ''
}
<section><h2>Webhook</h2>
<form method="post" action="/org/${e(slug)}/integration/webhook" data-form="webhook">${csrfField(ctx.csrf)}
<label for="webhook-url">Receiver URL (https)</label><input id="webhook-url" name="url" type="url" value="${e(endpoint?.url ?? '')}"${disabled}>
<fieldset><legend>Events</legend>${EVENT_TYPES.map(
        (t) =>
          `<label><input type="checkbox" name="events" value="${t}"${endpoint?.events.includes(t) ? ' checked' : ''}${disabled}> ${t}</label>`,
      ).join('')}</fieldset>
<label><input type="checkbox" name="enabled"${!endpoint || endpoint.enabled ? ' checked' : ''}${disabled}> Enabled</label>
${owner ? '<button type="submit" data-action="save-webhook">Save webhook</button>' : ''}</form>
${owner && endpoint ? `${postButton(`/org/${slug}/integration/webhook/secret`, ctx.csrf, 'Rotate secret')} ${postButton(`/org/${slug}/integration/webhook/test`, ctx.csrf, 'Send test event')}` : ''}
</section>
<section><h2>Recent deliveries</h2>${table(
        ['Event', 'Type', 'Status', 'Attempts', 'Last answer', ''],
        deliveryRows,
        deliveries.items.map((d) => (d.status === 'dead' ? 'dead' : '')),
      )}</section>`,
    );
  }

  /** Post/redirect/get with a message. */
  private back(
    res: Response,
    slug: string,
    page: string,
    message: { notice?: string; error?: string },
  ): void {
    const query = new URLSearchParams(
      Object.entries(message).filter((kv): kv is [string, string] => !!kv[1]),
    );
    res.redirect(303, `/org/${slug}/${page}${query.size ? `?${query.toString()}` : ''}`);
  }

  private async run(
    res: Response,
    slug: string,
    page: string,
    notice: string,
    action: () => Promise<unknown>,
  ) {
    try {
      await action();
      this.back(res, slug, page, { notice });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      this.back(res, slug, page, { error: messageOf(error) });
    }
  }

  private cookie(req: Request): string | undefined {
    return this.security.cookie(req, ADMIN_COOKIE);
  }
}

function lines(value: unknown): string[] {
  return typeof value === 'string'
    ? value
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter(Boolean)
    : [];
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim().slice(0, 500) : undefined;
}

function positive(value: string | undefined): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : 1;
}

function messageOf(error: unknown): string {
  if (error instanceof DomainError) return error.detail;
  throw error;
}
