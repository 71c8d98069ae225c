import {
  type ArgumentsHost,
  Catch,
  Controller,
  type ExceptionFilter,
  Get,
  HttpCode,
  Injectable,
  Param,
  Post,
  UseFilters,
} from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../common/access/access.decorators';
import { RateLimit } from '../access/rate-limits';
import { DomainError, ValidationFailedError } from '../common/errors/domain-error';
import { ApiFormBody, ApiHtmlPages, ApiRedirect } from '../common/http/html-openapi';
import { FastLane } from '../fast-lanes/fast-lane.decorator';
import { serverErrorPage } from '../common/pages/error-page';
import { FormBody, FormText } from '../common/pages/form';
import { type HtmlPage, PageException, Redirect } from '../common/pages/page';
import { Pages } from '../common/pages/pages.decorator';
import { sendResult } from '../common/pages/send';
import { LeadContactDto } from '../leads/dto/create-lead.dto';
import { LeadsService } from '../leads/leads.service';
import type { TenantEntity } from '../tenants/tenant.entity';
import { TenantsService } from '../tenants/tenants.service';
import type { DeeplinkEntity } from './deeplink.entity';
import { DeeplinksService, type LinkDestination } from './deeplinks.service';
import { landingPage, linkDisabledPage, linkNotFoundPage, thankYouPage } from './landing-page';

const CODE_PATTERN = /^[A-Za-z0-9]{8}$/;

/** The landing page's lead form: the Embed API's contact rules, blank fields left out. */
export class LandingLeadForm extends LeadContactDto {
  @FormText() declare name: string;
  @FormText() declare email?: string;
  @FormText() declare phone?: string;
}

/** A short link's landing page and its tenant, looked up by code. */
@Injectable()
export class LandingLookup {
  constructor(
    private readonly links: DeeplinksService,
    private readonly tenants: TenantsService,
  ) {}

  async find(code: string): Promise<{ link: DeeplinkEntity; tenant: TenantEntity } | undefined> {
    const link = CODE_PATTERN.test(code) ? await this.links.byCode(code) : undefined;
    const tenant = link && (await this.tenants.tenantById(link.tenantId));
    return link && tenant ? { link, tenant } : undefined;
  }
}

/**
 * A refused lead (an invalid form, the rate limit, the service's refusal) shows the landing page
 * again with the reason, under the refusal's status, instead of going elsewhere.
 */
@Catch(DomainError)
@Injectable()
export class LandingRefusalFilter implements ExceptionFilter {
  constructor(private readonly landing: LandingLookup) {}

  catch(error: DomainError, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const status = Number(error.status);
    if (status >= 500) return sendResult(res, serverErrorPage(req, status, req.id as string));
    const message =
      error instanceof ValidationFailedError
        ? 'Please give your name and an email or a phone number.'
        : error.detail;
    this.landing.find(String(req.params.code)).then(
      (found) =>
        sendResult(
          res,
          found ? landingPage(found.tenant, found.link, message, status) : linkNotFoundPage(),
        ),
      (failure: unknown) => http.getNext<(error: unknown) => void>()(failure),
    );
  }
}

const CODE = {
  name: 'code',
  description: 'The 8-character code',
  schema: { type: 'string' as const, pattern: '^[A-Za-z0-9]{8}$' },
};

/** Where a short link leads, as its answer: the redirect, the landing page, or not found. */
function answerFor(destination: LinkDestination | undefined): HtmlPage | Redirect {
  if (!destination) return linkNotFoundPage();
  if (destination.kind === 'disabled') return linkDisabledPage();
  if (destination.kind === 'redirect') {
    return new Redirect(destination.location, 302, {
      headers: { 'Cache-Control': 'no-store' },
      encoded: true,
    });
  }
  return landingPage(destination.tenant, destination.link);
}

/**
 * Short links (docs/embedding.md): a click is recorded, then a 302 to the target with `ref`, or the
 * service's landing page with the recommendation, the promo code and a lead form that works
 * without JavaScript. Never cached.
 */
@ApiTags('short-links')
@Controller('s')
@Public()
@Pages()
export class ShortLinkController {
  constructor(
    private readonly links: DeeplinksService,
    private readonly landing: LandingLookup,
    private readonly leads: LeadsService,
  ) {}

  @Get(':code')
  @FastLane()
  @ApiOperation({
    summary: 'Follows a short link: a redirect, or the landing page',
    description:
      "Counts the click. A link to the tenant's website (or a `link_templates` target) redirects " +
      'there with `ref` added, signed with the click time (docs/fraud.md: it credits the partner ' +
      "for the tenant's `attribution_window_days`); a banned partner's link answers 410; any " +
      'other link renders the landing page with the recommendation, ' +
      'the promo code and a lead form posting to `/s/{code}/lead`. Never cached. A followed ' +
      'link is answered from memory, ahead of the framework (fast lane), with the same answer.',
  })
  @ApiParam(CODE)
  @ApiRedirect(302, 'The target, with `ref` added', 'https://acme.example/?ref=<signed ref>')
  @ApiHtmlPages(
    [200, 'The landing page with its lead form'],
    [404, 'Link not found'],
    [410, '`link_disabled`: the partner is banned (docs/fraud.md)'],
  )
  follow(@Param('code') code: string): HtmlPage | Redirect | Promise<HtmlPage | Redirect> {
    if (!CODE_PATTERN.test(code)) return linkNotFoundPage();
    // A followed link is in memory: its answer waits for nothing (the fast lane's hot path).
    const cached = this.links.followCached(code);
    return cached ? answerFor(cached) : this.links.follow(code).then(answerFor);
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
  @RateLimit('lead_form')
  @UseFilters(LandingRefusalFilter)
  async lead(@Param('code') code: string, @FormBody() contact: LandingLeadForm): Promise<HtmlPage> {
    const found = await this.landing.find(code);
    if (!found) throw new PageException(linkNotFoundPage());
    await this.leads.create(
      found.tenant,
      { referrer_user_id: found.link.serviceUserId, contact },
      'referral_link',
      null,
      true, // anyone may post the landing page's form: no evidence for duplicate_customer
    );
    return thankYouPage(found.tenant);
  }
}
