import { HttpCode, Param, Post } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsString, Length, Matches } from 'class-validator';
import { ApplicationsService } from '../../applications/applications.service';
import { PageQuery } from '../../common/http/single-query-values.pipe';
import { FormBody, FormText } from '../../common/pages/form';
import { type HtmlPage, Redirect, withQuery } from '../../common/pages/page';
import { Optional } from '../../common/validation/optional';
import { GROUP_ID } from '../../groups/dto/group-requests.dto';
import { GroupsService } from '../../groups/groups.service';
import { consoleActionDocs, consolePageDocs, LANG, refusedOn } from '../org-page.openapi';
import { Org, OrgAction, type ConsoleCtx, OrgPagesController, OrgView } from '../org-page';
import { type ApplicationsModel, applicationsPage } from './applications.views';

const PAGE_SIZE = 20;

export class ApproveApplicationForm {
  @Optional()
  @FormText()
  @Matches(GROUP_ID, { message: 'Choose one of the groups.' })
  group_id?: string;
}

export class RejectApplicationForm {
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @Length(1, 500, { message: 'A rejection needs a reason (at most 500 characters).' })
  reason: string;
}

const APPLICATION = {
  fields: {},
  redirect: 'Back to the list, with `notice` or `error`',
  back: '/org/{slug}/applications',
  refused: refusedOn('application'),
};

/**
 * The console's applications page (docs/console.md): the pending applications with their answers,
 * approved or rejected by managers through ApplicationsService, as the Admin API does.
 */
@OrgPagesController('applications')
export class ApplicationsPagesController {
  constructor(
    private readonly applications: ApplicationsService,
    private readonly groups: GroupsService,
  ) {}

  @OrgView()
  @consolePageDocs(
    'The pending partner applications, with their answers',
    {
      group_id: { type: 'string', description: 'Only applications to this group' },
      page: { type: 'integer', minimum: 1 },
      lang: LANG,
    },
    refusedOn(),
  )
  async page(
    @Org() ctx: ConsoleCtx,
    @PageQuery() query: Record<string, string>,
  ): Promise<HtmlPage> {
    const groupId = GROUP_ID.test(query.group_id ?? '') ? query.group_id : undefined;
    const page = Math.min(Math.max(Number.parseInt(query.page ?? '1', 10) || 1, 1), 100_000);
    const [queue, groups] = await Promise.all([
      this.applications.pendingQueue(ctx.tenant.id, groupId, page, PAGE_SIZE),
      this.groups.list(ctx.tenant.id, { page: 1, page_size: 100 }),
    ]);
    const model: ApplicationsModel = {
      groups: groups.items.map((g) => ({
        id: g.group_id,
        name: g.name,
        labels: Object.fromEntries(g.signup.fields.map((f) => [f.name, f.label])),
      })),
      groupId,
      items: queue.items.map((row) => ({
        id: row.id,
        fullName: row.fullName,
        email: row.email,
        groupId: row.groupId,
        groupName: row.groupName,
        recruiter: row.referrerMemberId ? row.referrerName : undefined,
        answers: row.answers,
        createdAt: row.createdAt,
      })),
      total: queue.total,
      page,
      totalPages: Math.ceil(queue.total / PAGE_SIZE),
      notice: query.notice,
      error: query.error,
    };
    return applicationsPage(ctx, model);
  }

  @Post(':application_id/approve')
  @HttpCode(303)
  @OrgAction('manager', 'applications')
  @consoleActionDocs({
    ...APPLICATION,
    summary: 'Approves the application: the applicant becomes a partner (docs/partners.md)',
    description: 'Into `group_id` (default the group applied to).',
    fields: { group_id: { type: 'string' } },
    required: [],
  })
  async approve(
    @Org() ctx: ConsoleCtx,
    @Param('application_id') applicationId: string,
    @FormBody() form: ApproveApplicationForm,
  ): Promise<Redirect> {
    await this.applications.approve(
      ctx.tenant.id,
      applicationId,
      { group_id: form.group_id },
      ctx.actor,
    );
    return new Redirect(withQuery(`/org/${ctx.tenant.slug}/applications`, { notice: 'approved' }));
  }

  @Post(':application_id/reject')
  @HttpCode(303)
  @OrgAction('manager', 'applications')
  @consoleActionDocs({
    ...APPLICATION,
    summary: 'Rejects the application with a reason (docs/partners.md)',
    description: 'The reason goes with `partner.rejected`.',
    fields: { reason: { type: 'string', minLength: 1, maxLength: 500 } },
    required: ['reason'],
  })
  async reject(
    @Org() ctx: ConsoleCtx,
    @Param('application_id') applicationId: string,
    @FormBody() form: RejectApplicationForm,
  ): Promise<Redirect> {
    await this.applications.reject(ctx.tenant.id, applicationId, form.reason, ctx.actor);
    return new Redirect(withQuery(`/org/${ctx.tenant.slug}/applications`, { notice: 'rejected' }));
  }
}
