import { Body, Controller, Get, HttpCode, Inject, Ip, Param, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import type { Response } from 'express';
import { AUTH_LOOKUP, type AuthLookup } from '../common/auth/auth-lookup';
import { Public } from '../common/auth/auth.decorators';
import { DomainError } from '../common/errors/domain-error';
import { escapeHtml, sendPage } from '../common/http/html';
import { ApiFormBody, ApiHtmlPages, ApiRedirect } from '../common/http/html-openapi';
import { RateLimiter } from '../common/http/rate-limiter';
import { LeadContactDto } from '../leads/dto/create-lead.dto';
import { LeadsService } from '../leads/leads.service';
import type { TenantEntity } from '../tenants/tenant.entity';
import { DeeplinksService } from './deeplinks.service';
import type { DeeplinkEntity } from './deeplink.entity';
import { LEAD_FORM_LIMIT } from './lead-form.controller';

const CODE = {
  name: 'code',
  description: 'The 8-character code',
  schema: { type: 'string' as const, pattern: '^[A-Za-z0-9]{8}$' },
};

/**
 * Short links (SPEC 5): a click is recorded, then a 302 to the target with `ref`, or the
 * service's landing page with the recommendation, the promo code and a lead form that works
 * without JavaScript. Never cached.
 */
@ApiTags('short-links')
@Controller('s')
@Public()
export class ShortLinkController {
  constructor(
    private readonly links: DeeplinksService,
    private readonly leads: LeadsService,
    private readonly limiter: RateLimiter,
    @Inject(AUTH_LOOKUP) private readonly lookup: AuthLookup,
  ) {}

  @Get(':code')
  @ApiOperation({
    summary: 'Follows a short link: a redirect, or the landing page',
    description:
      "Counts the click. A link to the tenant's website (or a `link_templates` target) redirects " +
      'there with `ref` added; any other link renders the landing page with the recommendation, ' +
      'the promo code and a lead form posting to `/s/{code}/lead`. Never cached. A followed ' +
      'redirect is answered from memory ahead of the framework (fast lane), with the same answer.',
  })
  @ApiParam(CODE)
  @ApiRedirect(302, 'The target, with `ref` added', 'https://acme.example/?ref=<signed ref>')
  @ApiHtmlPages([200, 'The landing page with its lead form'], [404, 'Link not found'])
  async follow(@Param('code') code: string, @Res() res: Response): Promise<void> {
    const destination = /^[A-Za-z0-9]{8}$/.test(code) ? await this.links.follow(code) : undefined;
    if (!destination) return notFound(res);
    if (destination.kind === 'redirect') {
      res.setHeader('Cache-Control', 'no-store');
      return res.redirect(302, destination.location);
    }
    landingPage(res, destination.tenant, destination.link);
  }

  /** The landing page's form post: a lead with source `referral_link`. */
  @Post(':code/lead')
  @HttpCode(200)
  @ApiOperation({
    summary: "The landing page's lead form",
    description:
      "A lead for the link's partner, source `referral_link`; 20 a minute per IP. A refusal " +
      "renders the landing page again with the reason, under the refusal's status.",
  })
  @ApiParam(CODE)
  @ApiFormBody(
    {
      name: { type: 'string', maxLength: 200 },
      email: { type: 'string', format: 'email', maxLength: 254, description: 'Or a phone' },
      phone: { type: 'string', maxLength: 32, description: 'Or an email' },
    },
    ['name'],
  )
  @ApiHtmlPages(
    [200, 'Thank-you page'],
    [400, 'The landing page again: a name and an email or a phone are needed'],
    [404, 'Link not found'],
    [422, 'The landing page again, with the reason the lead was refused'],
    [429, 'The landing page again: too many requests from this address'],
  )
  async lead(
    @Param('code') code: string,
    @Body() body: Record<string, unknown>,
    @Ip() ip: string,
    @Res() res: Response,
  ): Promise<void> {
    const link = /^[A-Za-z0-9]{8}$/.test(code) ? await this.links.byCode(code) : undefined;
    const tenant = link && (await this.tenantById(link.tenantId));
    if (!link || !tenant) return notFound(res);
    const contact = plainToInstance(LeadContactDto, {
      name: text(body.name),
      email: text(body.email),
      phone: text(body.phone),
    });
    if (validateSync(contact).length) {
      return landingPage(
        res,
        tenant,
        link,
        'Please give your name and an email or a phone number.',
        400,
      );
    }
    try {
      await this.limiter.consume('lead_form', ip, LEAD_FORM_LIMIT.perMinute, 60);
      await this.leads.create(
        tenant,
        { referrer_user_id: link.serviceUserId, contact },
        'referral_link',
      );
    } catch (error) {
      if (error instanceof DomainError && Number(error.status) < 500) {
        return landingPage(res, tenant, link, error.detail, error.status);
      }
      throw error;
    }
    sendPage(res, {
      title: tenant.displayName,
      body: `<h1>Thank you!</h1><p>${escapeHtml(tenant.displayName)} will contact you soon.</p>`,
    });
  }

  private tenantById(tenantId: string): Promise<TenantEntity | null> {
    return this.lookup.tenantById(tenantId);
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function notFound(res: Response): void {
  sendPage(res, {
    status: 404,
    title: 'Link not found',
    body: '<h1>Link not found</h1><p class="muted">This link does not exist or was mistyped.</p>',
  });
}

function landingPage(
  res: Response,
  tenant: TenantEntity,
  link: DeeplinkEntity,
  error?: string,
  status = 200,
): void {
  const recommendation = link.recommendationText
    ? `<p>${escapeHtml(link.recommendationText)}</p>`
    : `<p>A friend recommends ${escapeHtml(tenant.displayName)}.</p>`;
  const promo = link.promoCode
    ? `<p>Your promo code: <span class="promo" data-promo-code>${escapeHtml(link.promoCode)}</span></p>`
    : '';
  sendPage(res, {
    status,
    title: tenant.displayName,
    body: `<h1>${escapeHtml(tenant.displayName)}</h1>${recommendation}${promo}
${error ? `<p class="error">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/s/${escapeHtml(link.code)}/lead" data-form="lead">
<label for="name">Name</label><input id="name" name="name" required maxlength="200" autocomplete="name">
<label for="email">Email</label><input id="email" name="email" type="email" maxlength="254" autocomplete="email">
<label for="phone">Phone</label><input id="phone" name="phone" type="tel" maxlength="32" autocomplete="tel">
<button type="submit" data-action="submit">Leave a request</button></form>`,
  });
}
