import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { MoreThan } from 'typeorm';
import type { Actor } from '../access/principal';
import { AUTH_LOOKUP, type AuthLookup } from '../access/auth-lookup';
import { sha256Hex } from '../common/ids';
import { AppConfig } from '../config/app-config';
import { TransactionHost } from '../database/transaction-host';
import type { TenantEntity } from '../tenants/tenant.entity';
import { AdminSessionEntity } from './admin-session.entity';

export const ADMIN_SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export interface AdminPrincipal {
  actor: Actor;
  /** The staff member's own tenant; undefined for the platform admin (any tenant). */
  tenant?: TenantEntity;
  csrf: string;
}

/**
 * Sign-in for the admin pages: a staff token (or the platform admin token) is exchanged for a
 * session cookie. The same credentials and roles as the admin API; nothing else grants access.
 */
@Injectable()
export class AdminSessionsService {
  private readonly adminDigest: Buffer;

  constructor(
    private readonly tx: TransactionHost,
    @Inject(AUTH_LOOKUP) private readonly lookup: AuthLookup,
    config: AppConfig,
  ) {
    this.adminDigest = createHash('sha256').update(config.adminToken).digest();
  }

  private get repo() {
    return this.tx.manager.getRepository(AdminSessionEntity);
  }

  /** A session token for a valid credential, or undefined. */
  async signIn(credential: string): Promise<string | undefined> {
    const digest = createHash('sha256').update(credential).digest();
    let session: Omit<AdminSessionEntity, 'tokenHash'>;
    const base = {
      csrf: randomBytes(24).toString('base64url'),
      createdAt: new Date(),
      expiresAt: new Date(Date.now() + ADMIN_SESSION_TTL_MS),
    };
    if (timingSafeEqual(digest, this.adminDigest)) {
      session = { ...base, actorType: 'platform', staffTokenHash: null };
    } else if (
      credential.startsWith('stf_') &&
      (await this.lookup.staffByTokenHash(sha256Hex(credential)))
    ) {
      session = { ...base, actorType: 'staff', staffTokenHash: sha256Hex(credential) };
    } else {
      return undefined;
    }
    const token = randomBytes(32).toString('base64url');
    await this.repo.insert({ ...session, tokenHash: sha256Hex(token) });
    return token;
  }

  /** Who holds this session now; a revoked staff token ends it. */
  async resolve(token: string | undefined): Promise<AdminPrincipal | undefined> {
    if (!token) return undefined;
    const session = await this.repo.findOneBy({
      tokenHash: sha256Hex(token),
      expiresAt: MoreThan(new Date()),
    });
    if (!session) return undefined;
    if (session.actorType === 'platform') {
      return { actor: { type: 'platform', name: 'platform-admin' }, csrf: session.csrf };
    }
    const staff = session.staffTokenHash
      ? await this.lookup.staffByTokenHash(session.staffTokenHash)
      : null;
    if (!staff) return undefined;
    return {
      actor: {
        type: 'staff',
        id: staff.token.id,
        name: staff.token.name,
        role: staff.token.role,
        tenantId: staff.tenant.id,
      },
      tenant: staff.tenant,
      csrf: session.csrf,
    };
  }

  async signOut(token: string | undefined): Promise<void> {
    if (token) await this.repo.delete({ tokenHash: sha256Hex(token) });
  }
}
