import { Injectable } from '@nestjs/common';
import { IsNull, MoreThan } from 'typeorm';
import { deleteInBatches } from '../database/batched-delete';
import { PersonalData, type ErasedMember } from '../common/privacy/personal-data.decorator';
import { TransactionHost } from '../database/transaction-host';
import { ConsentTokenEntity, SessionEntity } from './session.entity';
import { SignInCodeEntity } from './sign-in-code.entity';

/** The popup's sign-in codes, sessions and consent tokens (SignInService holds the rules). */
@Injectable()
export class SignInRepository {
  constructor(private readonly tx: TransactionHost) {}

  private get codes() {
    return this.tx.manager.getRepository(SignInCodeEntity);
  }

  private get sessions() {
    return this.tx.manager.getRepository(SessionEntity);
  }

  private get consentTokens() {
    return this.tx.manager.getRepository(ConsentTokenEntity);
  }

  /** The codes mailed to this email since `since` (the per-hour limit). */
  countCodesSince(tenantId: string, email: string, since: Date): Promise<number> {
    return this.codes.countBy({ tenantId, email, createdAt: MoreThan(since) });
  }

  async insertCode(code: SignInCodeEntity): Promise<void> {
    await this.codes.insert(code);
  }

  /**
   * Spends a try of the newest live code of this email, unless it has had `maxTries`: that code,
   * or undefined.
   */
  async spendTry(
    tenantId: string,
    email: string,
    maxTries: number,
  ): Promise<{ id: string; code_hash: string; member_id: string } | undefined> {
    // TypeORM answers an UPDATE with [rows, affected].
    const [rows]: [{ id: string; code_hash: string; member_id: string }[], number] =
      await this.tx.manager.query(
        `UPDATE sign_in_codes SET attempts = attempts + 1
          WHERE (tenant_id, id) = (
            SELECT tenant_id, id FROM sign_in_codes
             WHERE tenant_id = $1 AND email = $2 AND used_at IS NULL AND expires_at > now()
             ORDER BY created_at DESC LIMIT 1)
            AND attempts < $3
        RETURNING id, code_hash, member_id`,
        [tenantId, email, maxTries],
      );
    return rows[0];
  }

  /** Marks the code used unless it already was; whether it was this call. */
  async useCode(tenantId: string, id: string): Promise<boolean> {
    const used = await this.codes.update(
      { tenantId, id, usedAt: IsNull() },
      { usedAt: new Date() },
    );
    return Boolean(used.affected);
  }

  async insertSession(session: SessionEntity): Promise<void> {
    await this.sessions.insert(session);
  }

  /** The tenant's session of this token hash, unless expired. */
  findLiveSession(tokenHash: string, tenantId: string): Promise<SessionEntity | null> {
    return this.sessions.findOneBy({ tokenHash, tenantId, expiresAt: MoreThan(new Date()) });
  }

  async deleteSession(tenantId: string, tokenHash: string): Promise<void> {
    await this.sessions.delete({ tenantId, tokenHash });
  }

  async insertConsentToken(token: ConsentTokenEntity): Promise<void> {
    await this.consentTokens.insert(token);
  }

  /** Marks the live, unused token of this session used; whether there was one. */
  async useConsentToken(
    tenantId: string,
    tokenHash: string,
    sessionHash: string,
  ): Promise<boolean> {
    const result = await this.consentTokens.update(
      { tenantId, tokenHash, sessionHash, usedAt: IsNull(), expiresAt: MoreThan(new Date()) },
      { usedAt: new Date() },
    );
    return (result.affected ?? 0) > 0;
  }

  /**
   * Deletes the expired sessions and consent tokens, and the sign-in codes a day past expiry (the
   * per-hour sign-in limit counts them), in batches; how many of each went.
   */
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

  /**
   * docs/privacy.md: the member's sign-in codes, sessions and the consent tokens bound to them,
   * deleted; answers the emails the codes were sent to.
   */
  @PersonalData('member', 'sign_in')
  async erasePersonal(member: ErasedMember): Promise<string[]> {
    const [codes]: [{ email: string }[], number] = await this.tx.manager.query(
      `DELETE FROM sign_in_codes WHERE tenant_id = $1 AND member_id = $2 RETURNING email`,
      [member.tenantId, member.memberId],
    );
    await this.tx.manager.query(
      `WITH gone AS (DELETE FROM sessions WHERE tenant_id = $1 AND member_id = $2
                     RETURNING token_hash)
       DELETE FROM consent_tokens WHERE session_hash IN (SELECT token_hash FROM gone)`,
      [member.tenantId, member.memberId],
    );
    return codes.map((c) => c.email);
  }

  /** docs/privacy.md: what the sign-in keeps about the member (no code or token itself). */
  @PersonalData('export', 'sign_in')
  async exportPersonal(tenantId: string, memberId: string): Promise<Record<string, unknown>> {
    const codes: { email: string; created_at: Date }[] = await this.tx.manager.query(
      `SELECT email, created_at FROM sign_in_codes WHERE tenant_id = $1 AND member_id = $2
        ORDER BY created_at`,
      [tenantId, memberId],
    );
    const sessions: { created_at: Date; expires_at: Date }[] = await this.tx.manager.query(
      `SELECT created_at, expires_at FROM sessions WHERE tenant_id = $1 AND member_id = $2
        ORDER BY created_at`,
      [tenantId, memberId],
    );
    return { sign_in_codes: codes, sessions };
  }
}
