import { Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { isEmail } from 'class-validator';
import type { Request } from 'express';
import { RateLimit } from '../access/rate-limits';
import { Public } from '../common/access/access.decorators';
import { DomainError, type FieldError, ValidationFailedError } from '../common/errors/domain-error';
import { ApiFormBody, ApiHtmlPages } from '../common/http/html-openapi';
import { formField, PageSecurity } from '../common/http/page-security';
import { errorPage } from '../common/pages/error-page';
import { type HtmlPage, PageException } from '../common/pages/page';
import { Pages } from '../common/pages/pages.decorator';
import type { GroupEntity } from '../groups/group.entity';
import { GroupsService } from '../groups/groups.service';
import { frameCtx } from '../pages/layout';
import type { TenantEntity } from '../tenants/tenant.entity';
import { TenantsService } from '../tenants/tenants.service';
import { ApplicationsService } from './applications.service';
import { JOIN_TEXTS, type JoinTexts } from './join.i18n';
import {
  closedPage,
  confirmedPage,
  confirmPage,
  invalidLinkPage,
  type JoinCtx,
  type JoinFormModel,
  joinPage,
  sentPage,
} from './join.views';

const ANSWER = 'answers.';
const FORM_FIELDS = {
  full_name: { type: 'string', maxLength: 200 },
  email: { type: 'string', format: 'email', maxLength: 254 },
  ref: { type: 'string', description: 'The signed_ref of the recruiting partner’s link' },
  'answers.<name>': {
    type: 'string',
    description: 'One field per question of the group (`signup.fields[].name`)',
  },
  _csrf: { type: 'string', description: "From the form; bound to this browser's cookie" },
} as const;

/**
 * The hosted application form and its confirmation (docs/partners.md, "Applications"), at
 * `/p/<slug>/join[/<group-slug>]` and `/p/<slug>/join/confirm`: plain forms in the page frame,
 * ru/en, no script. The forms carry a token bound to a cookie (login CSRF, as the sign-in forms);
 * the confirmation link's GET only shows what would be confirmed.
 */
@ApiTags('partner-pages')
@Controller('p/:slug/join')
@Public()
@Pages()
export class JoinPagesController {
  constructor(
    private readonly tenants: TenantsService,
    private readonly groups: GroupsService,
    private readonly applications: ApplicationsService,
    private readonly security: PageSecurity,
  ) {}

  @Get('confirm')
  @ApiOperation({
    summary: 'The confirmation page of a mailed link',
    description:
      'Shows what is being confirmed (name, group, recruiting partner) and one button that posts ' +
      'the confirmation. Opening the link confirms nothing.',
  })
  @ApiHtmlPages([200, 'The confirmation form'], [404, 'Unknown, used or expired link'])
  async confirmForm(
    @Param('slug') slug: string,
    @Query('token') token: unknown,
    @Req() req: Request,
  ): Promise<HtmlPage> {
    const tenant = await this.tenant(slug);
    const ctx = this.ctx(tenant, req);
    return this.confirmation(ctx, tenant, typeof token === 'string' ? token : '');
  }

  @Get('confirmed')
  @ApiOperation({
    summary: 'What a confirmed application says, in the language asked',
    description:
      'The page the confirmation answers with, again by GET (its language switch links here): ' +
      '`approved=1` for a group that approves at once. It names no application.',
  })
  @ApiHtmlPages([200, 'Confirmed'])
  async confirmed(
    @Param('slug') slug: string,
    @Query('approved') approved: unknown,
    @Req() req: Request,
  ): Promise<HtmlPage> {
    const tenant = await this.tenant(slug);
    return confirmedPage(this.ctx(tenant, req), approved === '1');
  }

  @Post('confirm')
  @HttpCode(200)
  @RateLimit('application_form')
  @ApiOperation({
    summary: 'Confirms an application',
    description:
      'The application becomes `pending` (`partner.applied`), or `approved` at once in a group ' +
      'that auto-approves. A token confirms once.',
  })
  @ApiFormBody({ token: { type: 'string' }, _csrf: FORM_FIELDS._csrf }, ['token', '_csrf'])
  @ApiHtmlPages(
    [200, 'Confirmed'],
    [403, 'The form expired: the confirmation form again'],
    [404, 'Unknown, used or expired link'],
  )
  async confirm(@Param('slug') slug: string, @Req() req: Request): Promise<HtmlPage> {
    const tenant = await this.tenant(slug);
    const token = formField(req, 'token') ?? '';
    const fresh = !!this.security.checkLogin(req, `/p/${tenant.slug}`);
    const ctx = this.ctx(tenant, req);
    if (!fresh) return this.confirmation(ctx, tenant, token, ctx.fmt.t.formExpired);
    const status = await this.applications.confirm(tenant, token);
    if (!status) return invalidLinkPage(ctx);
    // The page's language switch goes to the same words by GET: the link's token is spent.
    const approved = status === 'approved';
    ctx.url = new URL(`/p/${tenant.slug}/join/confirmed?approved=${approved ? 1 : 0}`, ctx.url);
    return confirmedPage(ctx, approved);
  }

  @Get()
  @ApiOperation({ summary: 'The application form of the default group' })
  @ApiHtmlPages([200, 'The form'], [404, 'The group takes no applications'])
  async defaultForm(@Param('slug') slug: string, @Req() req: Request): Promise<HtmlPage> {
    return this.form(slug, 'default', req);
  }

  @Post()
  @HttpCode(200)
  @RateLimit('application_form')
  @ApiOperation({ summary: 'Applies to the default group' })
  @ApiFormBody(FORM_FIELDS, ['full_name', 'email', '_csrf'])
  @ApiHtmlPages(
    [200, '“Check your mail”'],
    [400, 'The form again, with its errors'],
    [403, 'The form expired: the form again'],
    [404, 'The group takes no applications'],
  )
  async applyDefault(@Param('slug') slug: string, @Req() req: Request): Promise<HtmlPage> {
    return this.apply(slug, 'default', req);
  }

  @Get(':group')
  @ApiOperation({ summary: 'The application form of a group, with its own questions' })
  @ApiHtmlPages([200, 'The form'], [404, 'The group takes no applications'])
  async groupForm(
    @Param('slug') slug: string,
    @Param('group') group: string,
    @Req() req: Request,
  ): Promise<HtmlPage> {
    return this.form(slug, group, req);
  }

  @Post(':group')
  @HttpCode(200)
  @RateLimit('application_form')
  @ApiOperation({ summary: 'Applies to a group' })
  @ApiFormBody(FORM_FIELDS, ['full_name', 'email', '_csrf'])
  @ApiHtmlPages(
    [200, '“Check your mail”'],
    [400, 'The form again, with its errors'],
    [403, 'The form expired: the form again'],
    [404, 'The group takes no applications'],
  )
  async applyToGroup(
    @Param('slug') slug: string,
    @Param('group') group: string,
    @Req() req: Request,
  ): Promise<HtmlPage> {
    return this.apply(slug, group, req);
  }

  private async form(slug: string, groupSlug: string, req: Request): Promise<HtmlPage> {
    const tenant = await this.tenant(slug);
    const ctx = this.ctx(tenant, req);
    const group = await this.openGroup(ctx, tenant, groupSlug);
    const ref = typeof req.query.ref === 'string' ? req.query.ref : undefined;
    const recruiter = ref ? await this.applications.recruiterName(tenant, ref) : undefined;
    return joinPage(ctx, {
      ...this.formOf(ctx, group),
      values: { answers: {}, ref: recruiter !== undefined ? ref : undefined },
      recruiter,
    });
  }

  private async apply(slug: string, groupSlug: string, req: Request): Promise<HtmlPage> {
    const tenant = await this.tenant(slug);
    const ctx = this.ctx(tenant, req);
    const group = await this.openGroup(ctx, tenant, groupSlug);
    const { t } = ctx.fmt;
    const values = valuesOf(req);
    const recruiter = values.ref
      ? await this.applications.recruiterName(tenant, values.ref)
      : undefined;
    const again = (errors: Record<string, string>, error: string, status: number) =>
      joinPage(ctx, {
        ...this.formOf(ctx, group),
        values: { ...values, ref: recruiter !== undefined ? values.ref : undefined },
        recruiter,
        errors,
        error,
        status,
      });
    if (!this.security.checkLogin(req, `/p/${tenant.slug}`)) return again({}, t.formExpired, 403);
    const errors: Record<string, string> = {};
    const fullName = values.full_name?.trim() ?? '';
    if (!fullName || fullName.length > 200) errors.full_name = t.errName;
    const email = values.email?.trim() ?? '';
    if (email.length > 254 || !isEmail(email)) errors.email = t.errEmail;
    if (Object.keys(errors).length) return again(errors, t.fixFields, 400);
    try {
      await this.applications.submit(
        tenant,
        {
          group: group.slug,
          email,
          full_name: fullName,
          answers: values.answers,
          ...(recruiter !== undefined ? { ref: values.ref } : {}),
        },
        ctx.fmt.lang,
      );
    } catch (error) {
      if (!(error instanceof ValidationFailedError)) throw error;
      return again(wordedErrors(error.errors ?? [], t), t.fixFields, 400);
    }
    return sentPage(ctx);
  }

  private formOf(ctx: JoinCtx, group: GroupEntity): Omit<JoinFormModel, 'values'> {
    return {
      action: `/p/${ctx.slug}/join${group.slug === 'default' ? '' : `/${group.slug}`}`,
      groupName: group.name,
      fields: group.signup.fields,
      errors: {},
    };
  }

  private async confirmation(
    ctx: JoinCtx,
    tenant: TenantEntity,
    token: string,
    error?: string,
  ): Promise<HtmlPage> {
    const view = await this.applications.toConfirm(tenant, token);
    if (!view) return invalidLinkPage(ctx);
    return confirmPage(ctx, { ...view, token }, error);
  }

  private async openGroup(ctx: JoinCtx, tenant: TenantEntity, slug: string): Promise<GroupEntity> {
    try {
      return await this.groups.openForSignup(tenant.id, slug);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'group_not_found') {
        throw new PageException(closedPage(ctx));
      }
      throw error;
    }
  }

  private async tenant(slug: string): Promise<TenantEntity> {
    const tenant = await this.tenants.tenantBySlug(slug);
    if (!tenant) {
      throw new PageException(
        errorPage({ status: 404, title: 'Not found', lines: ['No such partner program.'] }),
      );
    }
    return tenant;
  }

  /**
   * The page's context: the frame in the page's language, with a fresh form token and its cookie
   * (a present cookie is kept, so two open forms of one browser both work).
   */
  private ctx(tenant: TenantEntity, req: Request): JoinCtx {
    const login = this.security.loginForm(req, `/p/${tenant.slug}`);
    const ctx = frameCtx(
      { tenant, csrf: login.csrf, who: '', slug: tenant.slug },
      req,
      this.security,
      `/p/${tenant.slug}`,
      JOIN_TEXTS,
    );
    ctx.cookies.push(login.cookie);
    return ctx;
  }
}

/** The posted form's fields: name, email, ref and the answers (`answers.<name>`). */
function valuesOf(req: Request): JoinFormModel['values'] {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const answers: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) {
    if (key.startsWith(ANSWER) && typeof value === 'string') {
      answers[key.slice(ANSWER.length)] = value;
    }
  }
  const text = (name: string) => (typeof body[name] === 'string' ? body[name] : undefined);
  return { full_name: text('full_name'), email: text('email'), ref: text('ref'), answers };
}

/** The service's field errors in the page's words, by form field. */
function wordedErrors(errors: FieldError[], t: JoinTexts): Record<string, string> {
  const worded: Record<string, string> = {};
  for (const { field, message } of errors) {
    worded[field] = message.startsWith('is required')
      ? t.errRequired
      : message.includes('URL')
        ? t.errUrl
        : message.includes('options')
          ? t.errOption
          : message.startsWith('must be at most')
            ? t.errTooLong
            : field === 'full_name'
              ? t.errName
              : field === 'email'
                ? t.errEmail
                : t.errInvalid;
  }
  return worded;
}
