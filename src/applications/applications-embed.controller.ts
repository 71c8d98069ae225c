import { Body, Controller, Get, Post, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { RateLimit } from '../access/rate-limits';
import { CurrentTenant, EmbedOrigin } from '../common/access/access.decorators';
import { ApiProblems } from '../common/errors/problem.response';
import type { TenantEntity } from '../tenants/tenant.entity';
import { ApplicationsService } from './applications.service';
import { ApplicationFormQueryDto, SubmitApplicationDto } from './dto/application-requests.dto';
import { ApplicationFormResponse, ApplicationSubmittedResponse } from './dto/application.response';
import { GroupsService } from '../groups/groups.service';
import { canonicalLocale, labelLanguage } from '../common/i18n/format';

@ApiTags('embed')
@Controller('embed/v1/applications')
export class ApplicationsEmbedController {
  constructor(
    private readonly applications: ApplicationsService,
    private readonly groups: GroupsService,
  ) {}

  /**
   * The application form of a group that takes applications (the application widget renders it):
   * its name and questions. A closed or unknown group: 404 `group_not_found`.
   */
  @Get('form')
  @EmbedOrigin({ allowOwnOrigin: true })
  @RateLimit('embed')
  @ApiProblems(400, [403, 'origin_not_allowed'], [404, 'group_not_found'], [429, 'rate_limited'])
  async form(
    @CurrentTenant() tenant: TenantEntity,
    @Query() query: ApplicationFormQueryDto,
  ): Promise<ApplicationFormResponse> {
    const group = await this.groups.openForSignup(tenant.id, query.group ?? 'default');
    return { group: group.slug, name: group.name, fields: group.signup.fields };
  }

  /**
   * The application form (docs/partners.md, "Applications"): 201 for a new application, 200 for
   * a repeat of a live one (the same answer whether or not the email is a partner already). The
   * applicant is mailed a confirmation link (valid 24 h), at most once per 10 minutes per email.
   * Origin rules of the Embed APIs; the service's own pages may call too. `?locale=` chooses the
   * mail's language (Russian for `ru…`, else English; default the tenant's locale).
   */
  @Post()
  @EmbedOrigin({ allowOwnOrigin: true })
  @RateLimit('embed', 'application_form')
  @ApiOkResponse({
    type: ApplicationSubmittedResponse,
    description: 'A repeat: the live application (unconfirmed: its data replaced)',
  })
  @ApiProblems(
    400,
    [403, 'origin_not_allowed'],
    [404, 'group_not_found'],
    [422, 'invalid_ref'],
    [422, 'ref_expired'],
    [429, 'rate_limited'],
  )
  async submit(
    @CurrentTenant() tenant: TenantEntity,
    @Body() dto: SubmitApplicationDto,
    @Query('locale') locale: unknown,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ApplicationSubmittedResponse> {
    // `?locale=` (as the widgets send it) chooses the mail's language; else the tenant's.
    const asked = canonicalLocale(locale);
    const lang = asked ? labelLanguage(asked) : undefined;
    const { created, ...answer } = await this.applications.submit(tenant, dto, lang);
    res.status(created ? 201 : 200);
    return answer;
  }
}
