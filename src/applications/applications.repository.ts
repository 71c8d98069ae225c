import { Injectable } from '@nestjs/common';
import { pageTotal } from '../database/entity-rows';
import { PersonalData, type ErasedMember } from '../common/privacy/personal-data.decorator';
import { ERASED, stringsIn } from '../database/redaction';
import { TransactionHost } from '../database/transaction-host';
import type { ApplicationEntity, ApplicationRow, ApplicationStatus } from './application.entity';

export type { ApplicationRow } from './application.entity';

interface Raw {
  tenant_id: string;
  id: string;
  group_id: string;
  email: string;
  full_name: string;
  answers: Record<string, string>;
  status: ApplicationStatus;
  referrer_member_id: string | null;
  member_id: string | null;
  reason: string | null;
  token_hash: string | null;
  token_expires_at: Date | null;
  mailed_at: Date | null;
  created_at: Date;
  updated_at: Date;
  confirmed_at: Date | null;
  decided_at: Date | null;
  referrer_user_id: string | null;
  user_id: string | null;
  referrer_name: string | null;
  group_name: string;
}

const LIVE = `a.status IN ('unconfirmed', 'pending')`;
/** An application `a` with its recruiter's and member's service user ids. */
const SELECT = `
  SELECT a.*, r.service_user_id AS referrer_user_id, m.service_user_id AS user_id,
         r.full_name AS referrer_name, g.name AS group_name
    FROM applications a
    JOIN groups g ON g.tenant_id = a.tenant_id AND g.id = a.group_id
    LEFT JOIN members r ON r.tenant_id = a.tenant_id AND r.id = a.referrer_member_id
    LEFT JOIN members m ON m.tenant_id = a.tenant_id AND m.id = a.member_id`;

/** Partner applications; every method takes the tenant id first. */
@Injectable()
export class ApplicationsRepository {
  constructor(private readonly tx: TransactionHost) {}

  /**
   * Inserts a new live application unless the tenant has one for this email already (the partial
   * unique index decides, also against a concurrent insert, which waits for its winner): false then.
   */
  async insertLive(a: ApplicationEntity): Promise<boolean> {
    const rows: unknown[] = await this.tx.manager.query(
      `INSERT INTO applications (tenant_id, id, group_id, email, full_name, answers, status,
                                 referrer_member_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'unconfirmed', $7, $8, $8)
       ON CONFLICT (tenant_id, lower(email)) WHERE status IN ('unconfirmed', 'pending')
       DO NOTHING RETURNING id`,
      [
        a.tenantId,
        a.id,
        a.groupId,
        a.email,
        a.fullName,
        JSON.stringify(a.answers),
        a.referrerMemberId,
        a.createdAt,
      ],
    );
    return rows.length === 1;
  }

  /** The tenant's live application for this email, locked until the transaction ends. */
  async findLiveForUpdate(tenantId: string, email: string): Promise<ApplicationRow | null> {
    const rows: Raw[] = await this.tx.manager.query(
      `${SELECT} WHERE a.tenant_id = $1 AND lower(a.email) = lower($2) AND ${LIVE}
        FOR UPDATE OF a`,
      [tenantId, email],
    );
    return rows[0] ? toRow(rows[0]) : null;
  }

  /** A repeat of an unconfirmed application replaces what it says. */
  async replaceData(
    tenantId: string,
    id: string,
    data: Pick<
      ApplicationEntity,
      'groupId' | 'email' | 'fullName' | 'answers' | 'referrerMemberId'
    >,
  ): Promise<void> {
    await this.tx.manager.query(
      `UPDATE applications
          SET group_id = $3, email = $4, full_name = $5, answers = $6, referrer_member_id = $7,
              updated_at = now()
        WHERE tenant_id = $1 AND id = $2`,
      [
        tenantId,
        id,
        data.groupId,
        data.email,
        data.fullName,
        JSON.stringify(data.answers),
        data.referrerMemberId,
      ],
    );
  }

  /** When a mail about any application of this email last went out in the tenant (null: never). */
  async lastMailedAt(tenantId: string, email: string): Promise<Date | null> {
    const [row]: { at: Date | null }[] = await this.tx.select(
      `SELECT max(mailed_at) AS at FROM applications WHERE tenant_id = $1 AND lower(email) = lower($2)`,
      [tenantId, email],
    );
    return row?.at ?? null;
  }

  /** A mail went out now: with a new confirmation token (its hash), or none (the portal mail). */
  async setMailed(
    tenantId: string,
    id: string,
    at: Date,
    token: { hash: string; expiresAt: Date } | null,
  ): Promise<void> {
    await this.tx.manager.query(
      `UPDATE applications SET mailed_at = $3, token_hash = $4, token_expires_at = $5
        WHERE tenant_id = $1 AND id = $2`,
      [tenantId, id, at, token?.hash ?? null, token?.expiresAt ?? null],
    );
  }

  /** The unconfirmed application whose live confirmation token has this hash. */
  async findByToken(tenantId: string, tokenHash: string): Promise<ApplicationRow | null> {
    const rows: Raw[] = await this.tx.select(
      `${SELECT} WHERE a.tenant_id = $1 AND a.token_hash = $2 AND a.status = 'unconfirmed'
          AND a.token_expires_at > now()`,
      [tenantId, tokenHash],
    );
    return rows[0] ? toRow(rows[0]) : null;
  }

  /**
   * Confirms the application of this live token: `pending`, its token spent. One statement, so a
   * token confirms once however many posts race; null when it confirms nothing.
   */
  async confirm(tenantId: string, tokenHash: string): Promise<ApplicationEntity | null> {
    const [rows]: [Raw[], number] = await this.tx.manager.query(
      `UPDATE applications
          SET status = 'pending', confirmed_at = now(), updated_at = now(),
              token_hash = NULL, token_expires_at = NULL
        WHERE tenant_id = $1 AND token_hash = $2 AND status = 'unconfirmed'
          AND token_expires_at > now()
        RETURNING *`,
      [tenantId, tokenHash],
    );
    return rows[0]
      ? toRow({
          ...rows[0],
          referrer_user_id: null,
          user_id: null,
          referrer_name: null,
          group_name: '',
        })
      : null;
  }

  /**
   * Decides a pending application (approved into `groupId`, or rejected with `reason`); the row
   * lock of the update makes concurrent decisions wait, then find it decided. Null when it was not
   * pending (or does not exist).
   */
  async decide(
    tenantId: string,
    id: string,
    to: { status: 'approved'; groupId: string } | { status: 'rejected'; reason: string },
  ): Promise<ApplicationEntity | null> {
    const [rows]: [Raw[], number] = await this.tx.manager.query(
      `UPDATE applications
          SET status = $3, decided_at = now(), updated_at = now(),
              group_id = coalesce($4, group_id), reason = $5
        WHERE tenant_id = $1 AND id = $2 AND status = 'pending'
        RETURNING *`,
      [
        tenantId,
        id,
        to.status,
        to.status === 'approved' ? to.groupId : null,
        to.status === 'rejected' ? to.reason : null,
      ],
    );
    return rows[0]
      ? toRow({
          ...rows[0],
          referrer_user_id: null,
          user_id: null,
          referrer_name: null,
          group_name: '',
        })
      : null;
  }

  async setMember(tenantId: string, id: string, memberId: string): Promise<void> {
    await this.tx.manager.query(
      `UPDATE applications SET member_id = $3 WHERE tenant_id = $1 AND id = $2`,
      [tenantId, id, memberId],
    );
  }

  async find(tenantId: string, id: string): Promise<ApplicationRow | null> {
    const rows: Raw[] = await this.tx.select(`${SELECT} WHERE a.tenant_id = $1 AND a.id = $2`, [
      tenantId,
      id,
    ]);
    return rows[0] ? toRow(rows[0]) : null;
  }

  /** A page of the tenant's applications in these statuses, newest first, and how many there are. */
  async list(
    tenantId: string,
    statuses: readonly ApplicationStatus[],
    groupId: string | undefined,
    offset: number,
    limit: number,
  ): Promise<[ApplicationRow[], number]> {
    const where = `a.tenant_id = $1 AND a.status = ANY($2::text[]) AND ($3::text IS NULL OR a.group_id = $3)`;
    const params = [tenantId, statuses, groupId ?? null];
    const rows: Raw[] = await this.tx.select(
      `${SELECT} WHERE ${where} ORDER BY a.created_at DESC, a.id DESC OFFSET $4 LIMIT $5`,
      [...params, offset, limit],
    );
    const total = await pageTotal(rows.length, offset, limit, () =>
      this.tx.select(`SELECT count(*)::int AS count FROM applications a WHERE ${where}`, params),
    );
    return [rows.map(toRow), total];
  }

  /**
   * docs/privacy.md: the member's applications (theirs, or for their email) keep their status and
   * dates; email (made of the id, unique as live applications' emails must be), name, answers,
   * staff's reason and token are cleared. Answers the values they held.
   */
  @PersonalData('member', 'applications')
  async erasePersonal(member: ErasedMember): Promise<string[]> {
    const [rows]: [
      { email: string; full_name: string; answers: unknown; reason: string | null }[],
      number,
    ] = await this.tx.manager.query(
      `WITH found AS (
           SELECT tenant_id, id, email, full_name, answers, reason FROM applications
            WHERE tenant_id = $1 AND (member_id = $2 OR lower(email) = lower($3::text))
              AND email NOT LIKE 'erased:%'
              FOR UPDATE)
         UPDATE applications a SET email = 'erased:' || a.id, full_name = $4, answers = '{}',
                token_hash = NULL, reason = CASE WHEN a.reason IS NULL THEN NULL ELSE $4 END,
                updated_at = now()
           FROM found WHERE a.tenant_id = found.tenant_id AND a.id = found.id
         RETURNING found.email, found.full_name, found.answers, found.reason`,
      [member.tenantId, member.memberId, member.email, ERASED],
    );
    return rows.flatMap((r) => [r.email, r.full_name, ...stringsIn(r.answers)]);
  }

  /** docs/privacy.md: the member's applications as they hold them. */
  @PersonalData('export', 'applications')
  async exportPersonal(tenantId: string, memberId: string): Promise<Record<string, unknown>> {
    const rows: unknown[] = await this.tx.manager.query(
      `SELECT id, email, full_name, answers, status, created_at FROM applications
        WHERE tenant_id = $1 AND member_id = $2 ORDER BY created_at`,
      [tenantId, memberId],
    );
    return { applications: rows };
  }
}

function toRow(r: Raw): ApplicationRow {
  return {
    tenantId: r.tenant_id,
    id: r.id,
    groupId: r.group_id,
    email: r.email,
    fullName: r.full_name,
    answers: r.answers,
    status: r.status,
    referrerMemberId: r.referrer_member_id,
    memberId: r.member_id,
    reason: r.reason,
    tokenHash: r.token_hash,
    tokenExpiresAt: r.token_expires_at && new Date(r.token_expires_at),
    mailedAt: r.mailed_at && new Date(r.mailed_at),
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
    confirmedAt: r.confirmed_at && new Date(r.confirmed_at),
    decidedAt: r.decided_at && new Date(r.decided_at),
    referrerUserId: r.referrer_user_id,
    userId: r.user_id,
    referrerName: r.referrer_name,
    groupName: r.group_name,
  };
}
