import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { AuditService } from '../audit/audit.service';
import { type AuditActor, systemActor } from '../common/access/actor';
import { DomainError, ValidationFailedError } from '../common/errors/domain-error';
import { canonicalLocale, labelLanguage } from '../common/i18n/format';
import { offsetOf, pagination } from '../common/http/pagination.dto';
import { newId, sha256Hex } from '../common/ids';
import { AppConfig } from '../config/app-config';
import { TransactionHost } from '../database/transaction-host';
import { DeeplinksService } from '../deeplinks/deeplinks.service';
import type { GroupEntity } from '../groups/group.entity';
import { GroupsService } from '../groups/groups.service';
import { MailerService } from '../mail/mailer.service';
import type { MemberEntity } from '../members/member.entity';
import { MembersService } from '../members/members.service';
import { EventsService } from '../outbox/events.service';
import type { TenantEntity } from '../tenants/tenant.entity';
import { checkAnswers } from './application-answers';
import { alreadyPartnerMail, confirmationMail, type Mail, type MailLang } from './application-mail';
import type { ApplicationEntity, ApplicationStatus } from './application.entity';
import {
  AlreadyPartnerError,
  ApplicationNotFoundError,
  ApplicationTransitionError,
} from './application.errors';
import { type ApplicationRow, ApplicationsRepository } from './applications.repository';
import type {
  ApproveApplicationDto,
  ListApplicationsQueryDto,
  SubmitApplicationDto,
} from './dto/application-requests.dto';
import type {
  ApplicationListResponse,
  ApplicationResponse,
  ApplicationSubmittedResponse,
} from './dto/application.response';

/** How long a mailed confirmation link confirms. */
export const CONFIRMATION_TTL_MS = 24 * 60 * 60 * 1000;
/** At most one mail per this long per email and tenant. */
export const MAIL_INTERVAL_MS = 10 * 60 * 1000;

const NOT_UNCONFIRMED: readonly ApplicationStatus[] = ['pending', 'approved', 'rejected'];

/** What the confirmation page shows of the application it confirms. */
export interface ConfirmationView {
  fullName: string;
  groupName: string;
  /** The recruiting partner's name (or null: none, or one without a name). */
  recruiter: string | null;
  hasRecruiter: boolean;
}

/**
 * Partner applications (docs/partners.md, "Applications"): the form (Embed endpoint and hosted
 * page), the mailed confirmation, and the staff's decision, which makes the applicant a member.
 * Nothing a submission answers or how long it takes tells whether the email is a member already.
 */
@Injectable()
export class ApplicationsService {
  private readonly logger = new Logger(ApplicationsService.name);

  constructor(
    private readonly tx: TransactionHost,
    private readonly applications: ApplicationsRepository,
    private readonly groups: GroupsService,
    private readonly members: MembersService,
    private readonly links: DeeplinksService,
    private readonly events: EventsService,
    private readonly audit: AuditService,
    private readonly mailer: MailerService,
    private readonly config: AppConfig,
  ) {}

  /**
   * A submitted application (201 `created`, else a repeat: 200). One live application per email:
   * a repeat while unconfirmed replaces its data, while pending changes nothing. A mail goes out
   * at most once per 10 minutes per email: the confirmation link, or for a member of the tenant a
   * link to the portal. `lang`: the mail's language (default the tenant's).
   */
  async submit(
    tenant: TenantEntity,
    dto: SubmitApplicationDto,
    lang?: MailLang,
  ): Promise<ApplicationSubmittedResponse & { created: boolean }> {
    const group = await this.groups.openForSignup(tenant.id, dto.group ?? 'default');
    const { answers, errors } = checkAnswers(group.signup.fields, dto.answers ?? {});
    if (errors.length) throw new ValidationFailedError(errors);
    const fullName = dto.full_name.trim();
    if (!fullName) {
      throw new ValidationFailedError([{ field: 'full_name', message: 'must not be blank' }]);
    }
    const recruiter = dto.ref ? await this.recruiterOf(tenant, dto.ref) : null;
    const email = dto.email.trim().toLowerCase();
    const member = await this.members.findByEmail(tenant.id, email);
    const data = {
      groupId: group.id,
      email,
      fullName,
      answers,
      referrerMemberId: recruiter?.id ?? null,
    };
    const outcome = await this.tx.transaction(async () => {
      for (let attempt = 0; attempt < 3; attempt++) {
        const now = new Date();
        const fresh: ApplicationEntity = {
          tenantId: tenant.id,
          id: newId('application'),
          ...data,
          status: 'unconfirmed',
          memberId: null,
          reason: null,
          tokenHash: null,
          tokenExpiresAt: null,
          mailedAt: null,
          createdAt: now,
          updatedAt: now,
          confirmedAt: null,
          decidedAt: null,
        };
        const created = await this.applications.insertLive(fresh);
        const live = created ? fresh : await this.applications.findLiveForUpdate(tenant.id, email);
        // Decided between the insert and the read: the next insert takes its place.
        if (!live) continue;
        if (live.status === 'pending') return { created, live, mail: undefined };
        if (!created) await this.applications.replaceData(tenant.id, live.id, data);
        const mail = await this.mailFor(tenant, group, live, member, lang, now);
        return { created, live, mail };
      }
      throw new Error('Could not settle the live application after 3 attempts');
    });
    if (outcome.mail) this.send(email, outcome.mail);
    return {
      created: outcome.created,
      application_id: outcome.live.id,
      status: outcome.live.status,
    };
  }

  /**
   * The mail of a submission, unless one went out for this email in the last 10 minutes: the
   * portal link for a member, else a new confirmation link (the token kept only as its hash).
   */
  private async mailFor(
    tenant: TenantEntity,
    group: GroupEntity,
    application: ApplicationEntity,
    member: MemberEntity | null,
    lang: MailLang | undefined,
    now: Date,
  ): Promise<Mail | undefined> {
    const last = await this.applications.lastMailedAt(tenant.id, application.email);
    if (last && now.getTime() - last.getTime() < MAIL_INTERVAL_MS) return undefined;
    const language = lang ?? labelLanguage(canonicalLocale(tenant.locale) ?? 'ru-RU');
    const base = this.config.publicBaseUrl.replace(/\/$/, '');
    if (member) {
      await this.applications.setMailed(tenant.id, application.id, now, null);
      return alreadyPartnerMail(language, tenant.displayName, `${base}/p/${tenant.slug}`);
    }
    const token = randomBytes(32).toString('base64url');
    await this.applications.setMailed(tenant.id, application.id, now, {
      hash: sha256Hex(token),
      expiresAt: new Date(now.getTime() + CONFIRMATION_TTL_MS),
    });
    const link = `${base}/p/${tenant.slug}/join/confirm?token=${token}`;
    return confirmationMail(language, tenant.displayName, group.name, link);
  }

  /** Sent after the answer, so that its time tells nothing (and a slow mail server holds no one). */
  private send(to: string, mail: Mail): void {
    setImmediate(() => {
      this.mailer
        .send(to, mail.subject, mail.text)
        .catch((error: unknown) => this.logger.error({ err: error }, 'Application mail failed'));
    });
  }

  /** The recruiting partner of a valid `ref` (422 `invalid_ref` / `ref_expired` otherwise), if still a member. */
  private async recruiterOf(tenant: TenantEntity, ref: string): Promise<MemberEntity | null> {
    const claims = this.links.verifyRef(ref, tenant);
    return this.members.findMember(tenant.id, claims.r);
  }

  /**
   * The join page's recruiter line for a `ref`: the recruiting partner's name (null: a partner
   * without one), or undefined when the ref is not valid for this tenant (the page drops it).
   */
  async recruiterName(tenant: TenantEntity, ref: string): Promise<string | null | undefined> {
    try {
      const recruiter = await this.recruiterOf(tenant, ref);
      return recruiter ? recruiter.fullName : undefined;
    } catch (error) {
      if (error instanceof DomainError && Number(error.status) === 422) return undefined;
      throw error;
    }
  }

  /** What the confirmation page shows for a live token, or null (unknown, used or expired). */
  async toConfirm(tenant: TenantEntity, token: string): Promise<ConfirmationView | null> {
    if (!token) return null;
    const application = await this.applications.findByToken(tenant.id, sha256Hex(token));
    if (!application) return null;
    const group = await this.groups.group(tenant.id, application.groupId);
    const recruiter = application.referrerMemberId
      ? await this.members.findMember(tenant.id, application.referrerMemberId)
      : null;
    return {
      fullName: application.fullName,
      groupName: group.name,
      recruiter: recruiter?.fullName ?? null,
      hasRecruiter: recruiter !== null,
    };
  }

  /**
   * Confirms the application of a live token (once, however many posts race): `pending` with
   * `partner.applied`, then approved at once when its group auto-approves. Null: nothing confirmed.
   */
  async confirm(tenant: TenantEntity, token: string): Promise<ApplicationStatus | null> {
    if (!token) return null;
    return this.tx.transaction(async () => {
      const confirmed = await this.applications.confirm(tenant.id, sha256Hex(token));
      if (!confirmed) return null;
      const recruiter = confirmed.referrerMemberId
        ? await this.members.findMember(tenant.id, confirmed.referrerMemberId)
        : null;
      await this.events.emit(tenant.id, 'partner.applied', {
        application_id: confirmed.id,
        group_id: confirmed.groupId,
        referrer_user_id: recruiter?.serviceUserId ?? null,
      });
      const group = await this.groups.group(tenant.id, confirmed.groupId);
      if (!group.signup.auto_approve) return 'pending';
      // A partner already (joined meanwhile): left pending for staff rather than a second member.
      if (await this.members.findByEmail(tenant.id, confirmed.email)) return 'pending';
      await this.decideApproval(tenant.id, confirmed.id, group, systemActor('auto-approve'));
      return 'approved';
    });
  }

  /** Staff's list: one status, or every status but `unconfirmed`; newest first. */
  async list(tenantId: string, query: ListApplicationsQueryDto): Promise<ApplicationListResponse> {
    const statuses = query.status ? [query.status] : NOT_UNCONFIRMED;
    const [rows, total] = await this.applications.list(
      tenantId,
      statuses,
      query.group_id,
      offsetOf(query),
      query.page_size,
    );
    return { items: rows.map(toResponse), pagination: pagination(query, total) };
  }

  /**
   * The console's queue: a page of pending applications (newest first) with their group's and
   * recruiter's names.
   */
  async pendingQueue(
    tenantId: string,
    groupId: string | undefined,
    page: number,
    pageSize: number,
  ): Promise<{ items: ApplicationRow[]; total: number }> {
    const [items, total] = await this.applications.list(
      tenantId,
      ['pending'],
      groupId,
      (page - 1) * pageSize,
      pageSize,
    );
    return { items, total };
  }

  async get(tenantId: string, applicationId: string): Promise<ApplicationResponse> {
    const row = await this.applications.find(tenantId, applicationId);
    if (!row) throw new ApplicationNotFoundError(applicationId);
    return toResponse(row);
  }

  /**
   * Approves a pending application (409 `invalid_transition` from any other status, once under
   * concurrent clicks): the applicant becomes a member in `group_id` (default the group applied to).
   */
  async approve(
    tenantId: string,
    applicationId: string,
    dto: ApproveApplicationDto,
    actor: AuditActor,
  ): Promise<ApplicationResponse> {
    await this.tx.transaction(async () => {
      const current = await this.applications.find(tenantId, applicationId);
      if (!current) throw new ApplicationNotFoundError(applicationId);
      const group = await this.groups.group(tenantId, dto.group_id ?? current.groupId);
      await this.decideApproval(tenantId, applicationId, group, actor);
    });
    return this.get(tenantId, applicationId);
  }

  /** Rejects a pending application with its reason (`partner.rejected`), once. */
  async reject(
    tenantId: string,
    applicationId: string,
    reason: string,
    actor: AuditActor,
  ): Promise<ApplicationResponse> {
    await this.tx.transaction(async () => {
      const decided = await this.applications.decide(tenantId, applicationId, {
        status: 'rejected',
        reason,
      });
      if (!decided) throw await this.refusal(tenantId, applicationId, 'rejected');
      await this.events.emit(tenantId, 'partner.rejected', {
        application_id: decided.id,
        group_id: decided.groupId,
        reason,
      });
      await this.audit.record(
        tenantId,
        actor,
        'application.rejected',
        { type: 'application', id: decided.id },
        { reason },
      );
    });
    return this.get(tenantId, applicationId);
  }

  /**
   * Approves the pending application into `group`, in the caller's transaction: the member
   * (`external_id` the application id, the service user of the same verified email when there is
   * one) under the recruiter when they are still an active member, `partner.approved`, audited.
   */
  private async decideApproval(
    tenantId: string,
    applicationId: string,
    group: GroupEntity,
    actor: AuditActor,
  ): Promise<void> {
    const decided = await this.applications.decide(tenantId, applicationId, {
      status: 'approved',
      groupId: group.id,
    });
    if (!decided) throw await this.refusal(tenantId, applicationId, 'approved');
    // Joined some other way meanwhile (the tenant's upsert): a second member of the same person
    // would split their money; staff reject the application instead.
    const existing = await this.members.findByEmail(tenantId, decided.email);
    if (existing) throw new AlreadyPartnerError(applicationId, existing.id);
    const recruiter = decided.referrerMemberId
      ? await this.members.findMember(tenantId, decided.referrerMemberId)
      : null;
    const underRecruiter = recruiter && recruiter.isActive && !recruiter.bannedAt;
    const member = await this.members.upsert(tenantId, {
      external_id: decided.id,
      email: decided.email,
      email_verified: true,
      full_name: decided.fullName,
      group: group.slug,
      ...(underRecruiter ? { referrer_user_id: recruiter.id } : {}),
    });
    await this.applications.setMember(tenantId, decided.id, member.tenant_service_id);
    await this.events.emit(tenantId, 'partner.approved', {
      application_id: decided.id,
      user_id: member.service_user_id,
      group_id: group.id,
      referrer_user_id: member.referrer_user_id,
    });
    await this.audit.record(
      tenantId,
      actor,
      'application.approved',
      { type: 'application', id: decided.id },
      { user_id: member.tenant_service_id, group_id: group.id },
    );
  }

  /** Why a decision found nothing pending: no such application (404), or another status (409). */
  private async refusal(tenantId: string, applicationId: string, to: string): Promise<Error> {
    const row = await this.applications.find(tenantId, applicationId);
    if (!row) return new ApplicationNotFoundError(applicationId);
    return new ApplicationTransitionError(applicationId, row.status, to);
  }
}

function toResponse(row: ApplicationRow): ApplicationResponse {
  return {
    application_id: row.id,
    group_id: row.groupId,
    email: row.email,
    full_name: row.fullName,
    answers: row.answers,
    status: row.status,
    referrer_user_id: row.referrerUserId,
    user_id: row.userId,
    reason: row.reason,
    created_at: row.createdAt.toISOString(),
    decided_at: row.decidedAt?.toISOString() ?? null,
  };
}
