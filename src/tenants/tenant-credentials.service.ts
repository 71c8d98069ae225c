import { Injectable } from '@nestjs/common';
import type { Actor } from '../common/access/actor';
import { newId, newSecret, sha256Hex } from '../common/ids';
import { TransactionHost } from '../database/transaction-host';
import { AuditService } from '../audit/audit.service';
import type {
  CreatedStaffTokenResponse,
  CreateStaffTokenDto,
  StaffTokenListResponse,
} from './dto/staff-token.dto';
import type {
  CreatedTenantKeyResponse,
  TenantKeyListResponse,
  TenantKeyResponse,
} from './dto/tenant-key.dto';
import { StaffTokensRepository } from './staff-tokens.repository';
import { CredentialNotFoundError, TooManyKeysError } from './tenant.errors';
import { TenantKeysRepository } from './tenant-keys.repository';
import { TenantLookupsRepository } from './tenant-lookups.repository';
import { TenantsRepository } from './tenants.repository';
import type { TenantKeyEntity } from './tenant-key.entity';

/** Two active keys at most: enough to rotate with overlap, few enough to keep track of. */
export const MAX_ACTIVE_KEYS = 2;

/**
 * Federation API keys and staff tokens: random 256-bit secrets shown once, stored as SHA-256.
 * Revocation is a column update the guard reads on every request, so it takes effect at once.
 */
@Injectable()
export class TenantCredentialsService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly tenants: TenantsRepository,
    private readonly keys: TenantKeysRepository,
    private readonly staffTokens: StaffTokensRepository,
    private readonly lookups: TenantLookupsRepository,
    private readonly audit: AuditService,
  ) {}

  createKey(
    tenantId: string,
    name: string | undefined,
    actor: Actor,
  ): Promise<CreatedTenantKeyResponse> {
    return this.tx.transaction(async () => {
      // The row lock makes "count, then insert" safe against two concurrent creations.
      await this.tenants.lock(tenantId);
      if ((await this.keys.countActive(tenantId)) >= MAX_ACTIVE_KEYS) {
        throw new TooManyKeysError(MAX_ACTIVE_KEYS);
      }
      const secret = newSecret('tk');
      const key: TenantKeyEntity = {
        tenantId,
        id: newId('tenantKey'),
        name: name ?? null,
        keyHash: sha256Hex(secret),
        keyHint: secret.slice(0, 9),
        createdAt: new Date(),
        revokedAt: null,
      };
      await this.keys.insert(key);
      await this.lookups.claim('tenant_key', key.keyHash, tenantId);
      await this.audit.record(
        tenantId,
        actor,
        'tenant_key.created',
        { type: 'tenant_key', id: key.id },
        {
          name: key.name,
        },
      );
      return {
        key_id: key.id,
        tenant_key: secret,
        name: key.name,
        created_at: key.createdAt.toISOString(),
      };
    });
  }

  async listKeys(tenantId: string): Promise<TenantKeyListResponse> {
    const keys = await this.keys.list(tenantId);
    return { items: keys.map(toKeyResponse) };
  }

  revokeKey(tenantId: string, keyId: string, actor: Actor): Promise<void> {
    return this.tx.transaction(async () => {
      if (!(await this.keys.find(tenantId, keyId))) throw new CredentialNotFoundError('key', keyId);
      if (await this.keys.revoke(tenantId, keyId)) {
        await this.audit.record(tenantId, actor, 'tenant_key.revoked', {
          type: 'tenant_key',
          id: keyId,
        });
      }
    });
  }

  createStaffToken(
    tenantId: string,
    dto: CreateStaffTokenDto,
    actor: Actor,
  ): Promise<CreatedStaffTokenResponse> {
    return this.tx.transaction(async () => {
      const secret = newSecret('stf');
      const token = {
        tenantId,
        id: newId('staffToken'),
        name: dto.name,
        role: dto.role,
        tokenHash: sha256Hex(secret),
        createdAt: new Date(),
        revokedAt: null,
      };
      await this.staffTokens.insert(token);
      await this.lookups.claim('staff_token', token.tokenHash, tenantId);
      await this.audit.record(
        tenantId,
        actor,
        'staff_token.created',
        { type: 'staff_token', id: token.id },
        { name: token.name, role: token.role },
      );
      return {
        token_id: token.id,
        token: secret,
        name: token.name,
        role: token.role,
        created_at: token.createdAt.toISOString(),
      };
    });
  }

  async listStaffTokens(tenantId: string): Promise<StaffTokenListResponse> {
    const tokens = await this.staffTokens.list(tenantId);
    return {
      items: tokens.map((t) => ({
        token_id: t.id,
        name: t.name,
        role: t.role,
        created_at: t.createdAt.toISOString(),
        revoked_at: t.revokedAt?.toISOString() ?? null,
      })),
    };
  }

  revokeStaffToken(tenantId: string, tokenId: string, actor: Actor): Promise<void> {
    return this.tx.transaction(async () => {
      if (!(await this.staffTokens.find(tenantId, tokenId))) {
        throw new CredentialNotFoundError('staff token', tokenId);
      }
      if (await this.staffTokens.revoke(tenantId, tokenId)) {
        await this.audit.record(tenantId, actor, 'staff_token.revoked', {
          type: 'staff_token',
          id: tokenId,
        });
      }
    });
  }
}

function toKeyResponse(key: TenantKeyEntity): TenantKeyResponse {
  return {
    key_id: key.id,
    name: key.name,
    key_hint: key.keyHint,
    created_at: key.createdAt.toISOString(),
    revoked_at: key.revokedAt?.toISOString() ?? null,
  };
}
