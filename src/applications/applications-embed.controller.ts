import { Body, Controller, Post, Res } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { RateLimit } from '../access/rate-limits';
import { CurrentTenant, EmbedOrigin } from '../common/access/access.decorators';
import { ApiProblems } from '../common/errors/problem.response';
import type { TenantEntity } from '../tenants/tenant.entity';
import { ApplicationsService } from './applications.service';
import { SubmitApplicationDto } from './dto/application-requests.dto';
import { ApplicationSubmittedResponse } from './dto/application.response';

@ApiTags('embed')
@Controller('embed/v1/applications')
export class ApplicationsEmbedController {
  constructor(private readonly applications: ApplicationsService) {}

  /**
   * The application form (docs/partners.md, "Applications"): 201 for a new application, 200 for
   * a repeat of a live one (the same answer whether or not the email is a partner already). The
   * applicant is mailed a confirmation link (valid 24 h), at most once per 10 minutes per email.
   * Origin rules of the Embed APIs; the service's own pages may call too.
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
    @Res({ passthrough: true }) res: Response,
  ): Promise<ApplicationSubmittedResponse> {
    const { created, ...answer } = await this.applications.submit(tenant, dto);
    res.status(created ? 201 : 200);
    return answer;
  }
}
