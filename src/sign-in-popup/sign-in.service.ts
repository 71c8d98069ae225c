import { Injectable, Logger } from '@nestjs/common';
import { randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { newId, sha256Hex } from '../common/ids';
import { Retention } from '../housekeeping/retention.decorator';
import type { TenantEntity } from '../tenants/tenant.entity';
import { MembersService } from '../members/members.service';
import { MailerService } from '../mail/mailer.service';
import type { SessionEntity } from './session.entity';
import { SignInRepository } from './sign-in.repository';

export const CODE_TTL_MS = 10 * 60 * 1000;
export const CODE_MAX_TRIES = 5;
export const CODES_PER_EMAIL_PER_HOUR = 5;
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
const CONSENT_TTL_MS = 15 * 60 * 1000;

/** How a sign-in code mail is worded. */
export interface CodeMail {
  subject: (code: string) => string;
  text: (code: string) => string;
}

const popupMail = (tenantName: string): CodeMail => ({
  subject: (code) => `${tenantName}: your sign-in code ${code}`,
  text: (code) =>
    `Your code is ${code}. It is valid for 10 minutes.\n\nIf you did not ask for it, ignore this mail.`,
});

/**
 * Sign-in by emailed code (docs/embedding.md §4), sessions and consent tokens. Nothing here tells a
 * caller whether an email belongs to a member: a code is mailed only to members, and the page
 * answers the same either way (the mail is sent in the background so timing does not tell either).
 */
@Injectable()
export class SignInService {
  private readonly logger = new Logger(SignInService.name);

  constructor(
    private readonly repo: SignInRepository,
    private readonly members: MembersService,
    private readonly mailer: MailerService,
  ) {}

  /**
   * Mails a code to the email if it is a member's. `mail` words it (the partner portal's, in the
   * page's language); the popup's English mail otherwise.
   */
  async requestCode(
    tenant: TenantEntity,
    rawEmail: string,
    mail: CodeMail = popupMail(tenant.displayName),
  ): Promise<void> {
    const email = rawEmail.trim().toLowerCase();
    const member = await this.members.findByEmail(tenant.id, email);
    if (!member) return;
    const recent = await this.repo.countCodesSince(
      tenant.id,
      email,
      new Date(Date.now() - 60 * 60 * 1000),
    );
    if (recent >= CODES_PER_EMAIL_PER_HOUR) return;
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const id = newId('signInCode');
    await this.repo.insertCode({
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
      .send(email, mail.subject(code), mail.text(code))
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
    const row = await this.repo.spendTry(tenant.id, email, CODE_MAX_TRIES);
    if (!row || !/^\d{6}$/.test(code)) return undefined;
    const expected = Buffer.from(row.code_hash);
    const given = Buffer.from(sha256Hex(`${row.id}:${code}`));
    if (!timingSafeEqual(expected, given)) return undefined;
    if (!(await this.repo.useCode(tenant.id, row.id))) return undefined;
    await this.members.markClaimed(tenant.id, row.member_id);
    return row.member_id;
  }

  async createSession(
    tenantId: string,
    memberId: string,
  ): Promise<{ token: string; expires: Date }> {
    const token = randomBytes(32).toString('base64url');
    const expires = new Date(Date.now() + SESSION_TTL_MS);
    await this.repo.insertSession({
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
    return this.repo.findLiveSession(sha256Hex(token), tenantId);
  }

  /** How the consent page names the signed-in member: the email, else the name or id. */
  async signedInAs(session: SessionEntity): Promise<string> {
    const member = await this.members
      .getMember(session.tenantId, session.memberId)
      .catch(() => null);
    return member?.email ?? member?.fullName ?? session.memberId;
  }

  /** Signs this browser out (the consent page's "Use another account"). */
  async endSession(session: SessionEntity): Promise<void> {
    await this.repo.deleteSession(session.tenantId, session.tokenHash);
  }

  /**
   * A single-use form token bound to this session (the consent form's CSRF token; the partner
   * portal issues one per page for its forms, living `ttlMs`).
   */
  async issueConsentToken(session: SessionEntity, ttlMs = CONSENT_TTL_MS): Promise<string> {
    const token = randomBytes(24).toString('base64url');
    await this.repo.insertConsentToken({
      tenantId: session.tenantId,
      tokenHash: sha256Hex(token),
      sessionHash: session.tokenHash,
      expiresAt: new Date(Date.now() + ttlMs),
      usedAt: null,
    });
    return token;
  }

  /** Spends a consent form's CSRF token: valid once, only with the session it was issued to. */
  async consumeConsentToken(token: string, session: SessionEntity): Promise<boolean> {
    return this.repo.useConsentToken(session.tenantId, sha256Hex(token), session.tokenHash);
  }

  /**
   * Deletes the expired sessions and consent tokens, and the sign-in codes a day past expiry (the
   * per-hour sign-in limit counts them), for housekeeping; how many of each went.
   */
  @Retention('signIn')
  deleteExpired(): Promise<{ sessions: number; consentTokens: number; signInCodes: number }> {
    return this.repo.deleteExpired();
  }
}
