import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../common/ids';
import { Retention } from '../housekeeping/retention.decorator';
import type { AdminSessionEntity } from './admin-session.entity';
import { AdminSessionsRepository } from './admin-sessions.repository';

export const ADMIN_SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/**
 * The admin pages' sessions (cookie `svc_admin`): rows keyed by the hash of the cookie's random
 * token, each naming the platform admin or the hash of the staff token that signed in. Only
 * AccessService reads them, and it checks the staff token behind a session on every request.
 */
@Injectable()
export class AdminSessionsService {
  constructor(private readonly repo: AdminSessionsRepository) {}

  /** A new session for the platform admin, or for the staff token of this hash; its token. */
  async create(staffTokenHash: string | null): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.repo.insert({
      tokenHash: sha256Hex(token),
      actorType: staffTokenHash === null ? 'platform' : 'staff',
      staffTokenHash,
      csrf: randomBytes(24).toString('base64url'),
      createdAt: new Date(),
      expiresAt: new Date(Date.now() + ADMIN_SESSION_TTL_MS),
    });
    return token;
  }

  /** The live session of this cookie token. */
  find(token: string): Promise<AdminSessionEntity | null> {
    return this.repo.findLive(sha256Hex(token));
  }

  async delete(token: string): Promise<void> {
    await this.repo.delete(sha256Hex(token));
  }

  /** Deletes the expired sessions (housekeeping runs it); how many went. */
  @Retention('adminSessions')
  deleteExpired(): Promise<number> {
    return this.repo.deleteExpired();
  }
}
