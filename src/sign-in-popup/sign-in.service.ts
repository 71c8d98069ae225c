import { Injectable, Logger } from '@nestjs/common';
import { randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { IsNull, MoreThan } from 'typeorm';
import { newId, sha256Hex } from '../common/ids';
import { deleteInBatches } from '../database/batched-delete';
import { TransactionHost } from '../database/transaction-host';
import { Retention } from '../housekeeping/retention.decorator';
import type { TenantEntity } from '../tenants/tenant.entity';
import { UsersService } from '../members/users.service';
import { MailerService } from './mailer.service';
import { ConsentTokenEntity, SessionEntity } from './session.entity';
import { SignInCodeEntity } from './sign-in-code.entity';

export const CODE_TTL_MS = 10 * 60 * 1000;
export const CODE_MAX_TRIES = 5;
export const CODES_PER_EMAIL_PER_HOUR = 5;
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
const CONSENT_TTL_MS = 15 * 60 * 1000;

/**
 * Sign-in by emailed code (docs/embedding.md §4), sessions and consent tokens. Nothing here tells a
 * caller whether an email belongs to a member: a code is mailed only to members, and the page
 * answers the same either way (the mail is sent in the background so timing does not tell either).
 */
@Injectable()
export class SignInService {
  private readonly logger = new Logger(SignInService.name);

  constructor(
    private readonly tx: TransactionHost,
    private readonly users: UsersService,
    private readonly mailer: MailerService,
  ) {}

  async requestCode(tenant: TenantEntity, rawEmail: string): Promise<void> {
    const email = rawEmail.trim().toLowerCase();
    const member = await this.users.findByEmail(tenant.id, email);
    if (!member) return;
    const codes = this.tx.manager.getRepository(SignInCodeEntity);
    const recent = await codes.countBy({
      tenantId: tenant.id,
      email,
      createdAt: MoreThan(new Date(Date.now() - 60 * 60 * 1000)),
    });
    if (recent >= CODES_PER_EMAIL_PER_HOUR) return;
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const id = newId('signInCode');
    await codes.insert({
      tenantId: tenant.id,
      id,
      email,
      memberId: member.id,
      codeHash: sha256Hex(`${id}:${code}`),
      attempts: 0,
      expiresAt: new Date(Date.now() + CODE_TTL_MS),
      usedAt: null,
      createdAt: new Date(),
    });
    this.mailer
      .send(
        email,
        `${tenant.displayName}: your sign-in code ${code}`,
        `Your code is ${code}. It is valid for 10 minutes.\n\nIf you did not ask for it, ignore this mail.`,
      )
      .catch((error: unknown) => this.logger.error({ err: error }, 'Sign-in mail failed'));
  }

  /**
   * Checks a code against the newest live one for this email: each check spends one of its five
   * tries, and a right code is used up. Returns the member id on success.
   */
  async verifyCode(
    tenant: TenantEntity,
    rawEmail: string,
    code: string,
  ): Promise<string | undefined> {
    const email = rawEmail.trim().toLowerCase();
    const [rows]: [{ id: string; code_hash: string; member_id: string }[], number] =
      await this.tx.manager.query(
        `UPDATE sign_in_codes SET attempts = attempts + 1
          WHERE (tenant_id, id) = (
            SELECT tenant_id, id FROM sign_in_codes
             WHERE tenant_id = $1 AND email = $2 AND used_at IS NULL AND expires_at > now()
             ORDER BY created_at DESC LIMIT 1)
            AND attempts < $3
        RETURNING id, code_hash, member_id`,
        [tenant.id, email, CODE_MAX_TRIES],
      );
    const row = rows[0];
    if (!row || !/^\d{6}$/.test(code)) return undefined;
    const expected = Buffer.from(row.code_hash);
    const given = Buffer.from(sha256Hex(`${row.id}:${code}`));
    if (!timingSafeEqual(expected, given)) return undefined;
    const used = await this.tx.manager
      .getRepository(SignInCodeEntity)
      .update({ tenantId: tenant.id, id: row.id, usedAt: IsNull() }, { usedAt: new Date() });
    if (!used.affected) return undefined;
    await this.users.markClaimed(tenant.id, row.member_id);
    return row.member_id;
  }

  async createSession(
    tenantId: string,
    memberId: string,
  ): Promise<{ token: string; expires: Date }> {
    const token = randomBytes(32).toString('base64url');
    const expires = new Date(Date.now() + SESSION_TTL_MS);
    await this.tx.manager.getRepository(SessionEntity).insert({
      tokenHash: sha256Hex(token),
      tenantId,
      memberId,
      expiresAt: expires,
      createdAt: new Date(),
    });
    return { token, expires };
  }

  /** The live session of this cookie token for this tenant, if any. */
  findSession(token: string | undefined, tenantId: string): Promise<SessionEntity | null> {
    if (!token) return Promise.resolve(null);
    return this.tx.manager.getRepository(SessionEntity).findOneBy({
      tokenHash: sha256Hex(token),
      tenantId,
      expiresAt: MoreThan(new Date()),
    });
  }

  /** How the consent page names the signed-in member: the email, else the name or id. */
  async signedInAs(session: SessionEntity): Promise<string> {
    const member = await this.users.getMember(session.tenantId, session.memberId).catch(() => null);
    return member?.email ?? member?.fullName ?? session.memberId;
  }

  /** Signs this browser out (the consent page's "Use another account"). */
  async endSession(session: SessionEntity): Promise<void> {
    await this.tx.manager
      .getRepository(SessionEntity)
      .delete({ tenantId: session.tenantId, tokenHash: session.tokenHash });
  }

  async issueConsentToken(session: SessionEntity): Promise<string> {
    const token = randomBytes(24).toString('base64url');
    await this.tx.manager.getRepository(ConsentTokenEntity).insert({
      tenantId: session.tenantId,
      tokenHash: sha256Hex(token),
      sessionHash: session.tokenHash,
      expiresAt: new Date(Date.now() + CONSENT_TTL_MS),
      usedAt: null,
    });
    return token;
  }

  /** Spends a consent form's CSRF token: valid once, only with the session it was issued to. */
  async consumeConsentToken(token: string, session: SessionEntity): Promise<boolean> {
    const result = await this.tx.manager.getRepository(ConsentTokenEntity).update(
      {
        tenantId: session.tenantId,
        tokenHash: sha256Hex(token),
        sessionHash: session.tokenHash,
        usedAt: IsNull(),
        expiresAt: MoreThan(new Date()),
      },
      { usedAt: new Date() },
    );
    return (result.affected ?? 0) > 0;
  }

  /**
   * Deletes the expired sessions and consent tokens, and the sign-in codes a day past expiry (the
   * per-hour sign-in limit counts them), for housekeeping; how many of each went.
   */
  @Retention('signIn')
  async deleteExpired(): Promise<{ sessions: number; consentTokens: number; signInCodes: number }> {
    const m = this.tx.manager;
    return {
      sessions: await deleteInBatches(m, `sessions`, `expires_at < now()`, `tenant_id, token_hash`),
      consentTokens: await deleteInBatches(
        m,
        `consent_tokens`,
        `expires_at < now()`,
        `tenant_id, token_hash`,
      ),
      signInCodes: await deleteInBatches(
        m,
        `sign_in_codes`,
        `expires_at < now() - interval '1 day'`,
        `tenant_id, id`,
      ),
    };
  }
}
