import { Injectable } from '@nestjs/common';
import type { Actor } from '../common/access/actor';
import { isUniqueViolation } from '../common/errors/pg-errors';
import { newId } from '../common/ids';
import { withPayoutDefaults } from './payout-settings';
import { TransactionHost } from '../database/transaction-host';
import { AuditService } from '../audit/audit.service';
import type { CreateTenantDto } from './dto/create-tenant.dto';
import type { CreatedTenantResponse, TenantResponse } from './dto/tenant.response';
import type { UpdateTenantDto } from './dto/update-tenant.dto';
import { DEFAULT_ATTRIBUTION_WINDOW_DAYS, withFraudDefaults } from './fraud-settings';
import { withRetentionDefaults } from './retention-settings';
import { withProgramDefaults } from './program';
import { ProgramVersionsService } from './program-versions.service';
import { StaffTokensRepository } from './staff-tokens.repository';
import { TenantCredentialsService } from './tenant-credentials.service';
import { SlugTakenError } from './tenant.errors';
import { toTenantResponse } from './tenant.mapper';
import type { TenantEntity } from './tenant.entity';
import { TenantKeysRepository } from './tenant-keys.repository';
import { TenantsRepository } from './tenants.repository';

/** Tenants themselves; also the lookups behind every credential (AccessService). */
@Injectable()
export class TenantsService {
  private readonly changeListeners: ((tenantId: string) => void)[] = [];

  constructor(
    private readonly tx: TransactionHost,
    private readonly tenants: TenantsRepository,
    private readonly keys: TenantKeysRepository,
    private readonly staffTokens: StaffTokensRepository,
    private readonly credentials: TenantCredentialsService,
    private readonly audit: AuditService,
    private readonly versions: ProgramVersionsService,
  ) {}

  /** Creates the tenant with its first key, in one transaction. */
  async create(dto: CreateTenantDto, actor: Actor): Promise<CreatedTenantResponse> {
    try {
      return await this.tx.transaction(async () => {
        const now = new Date();
        const tenant: TenantEntity = {
          id: newId('org'),
          slug: dto.slug,
          displayName: dto.display_name,
          allowedOrigins: dto.allowed_origins,
          currency: dto.currency ?? 'RUB',
          locale: dto.locale ?? 'ru-RU',
          payouts: withPayoutDefaults(dto.payouts),
          linkDomains: dto.link_domains ?? [],
          linkTemplates: dto.link_templates ?? {},
          program: withProgramDefaults(dto.program),
          attributionWindowDays: dto.attribution_window_days ?? DEFAULT_ATTRIBUTION_WINDOW_DAYS,
          fraud: withFraudDefaults(dto.fraud),
          embedAuth: dto.embed_auth ?? 'origin',
          retention: withRetentionDefaults(dto.retention),
          branding: { ...dto.branding },
          notifications: { ...dto.notifications },
          createdAt: now,
          updatedAt: now,
        };
        tenant.programVersionId = newId('programVersion');
        await this.tenants.insert(tenant);
        await this.versions.record(
          tenant.id,
          { type: 'default' },
          tenant.program,
          actor,
          tenant.programVersionId,
        );
        await this.audit.record(
          tenant.id,
          actor,
          'tenant.created',
          { type: 'tenant', id: tenant.id },
          {
            slug: tenant.slug,
          },
        );
        const key = await this.credentials.createKey(tenant.id, 'initial', actor);
        return { ...toTenantResponse(tenant), tenant_key: key.tenant_key };
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new SlugTakenError(dto.slug);
      throw error;
    }
  }

  get(tenant: TenantEntity): TenantResponse {
    return toTenantResponse(tenant);
  }

  /**
   * Calls `listener` with the tenant's id after each committed change of its settings, so what a
   * module keeps in memory from them (short-link targets) is dropped at once in this process.
   */
  onChanged(listener: (tenantId: string) => void): void {
    this.changeListeners.push(listener);
  }

  async update(tenant: TenantEntity, dto: UpdateTenantDto, actor: Actor): Promise<TenantResponse> {
    const updated = await this.tx.transaction(async () => {
      const current = (await this.tenants.lock(tenant.id))!;
      if (dto.display_name !== undefined) current.displayName = dto.display_name;
      if (dto.allowed_origins !== undefined) current.allowedOrigins = dto.allowed_origins;
      if (dto.currency !== undefined) current.currency = dto.currency;
      if (dto.locale !== undefined) current.locale = dto.locale;
      if (dto.payouts !== undefined)
        current.payouts = withPayoutDefaults(dto.payouts, withPayoutDefaults(current.payouts));
      if (dto.link_domains !== undefined) current.linkDomains = dto.link_domains;
      if (dto.link_templates !== undefined) current.linkTemplates = dto.link_templates;
      if (dto.program !== undefined) {
        current.program = withProgramDefaults(dto.program);
        current.programVersionId = await this.versions.record(
          tenant.id,
          { type: 'default' },
          current.program,
          actor,
        );
      }
      if (dto.attribution_window_days !== undefined) {
        current.attributionWindowDays = dto.attribution_window_days;
      }
      if (dto.fraud !== undefined) current.fraud = withFraudDefaults(dto.fraud);
      if (dto.embed_auth !== undefined) current.embedAuth = dto.embed_auth;
      if (dto.retention !== undefined) {
        current.retention = withRetentionDefaults(
          dto.retention,
          withRetentionDefaults(current.retention),
        );
      }
      if (dto.branding !== undefined) current.branding = { ...current.branding, ...dto.branding };
      if (dto.notifications !== undefined)
        current.notifications = { ...current.notifications, ...dto.notifications };
      current.updatedAt = new Date();
      const saved = await this.tenants.save(current);
      await this.audit.record(
        tenant.id,
        actor,
        'tenant.updated',
        { type: 'tenant', id: tenant.id },
        {
          fields: Object.keys(dto).sort(),
        },
      );
      return toTenantResponse(saved);
    });
    for (const listener of this.changeListeners) listener(tenant.id);
    return updated;
  }

  /** Whether the service has any tenant yet (a development server seeds the demo when not). */
  any(): Promise<boolean> {
    return this.tenants.any();
  }

  // The lookups behind credentials (AccessService)

  tenantBySlug(slug: string): Promise<TenantEntity | null> {
    return this.tenants.findBySlug(slug);
  }

  tenantById(tenantId: string): Promise<TenantEntity | null> {
    return this.tenants.findById(tenantId);
  }

  async tenantByKeyHash(keyHash: string) {
    const found = await this.keys.findActiveByHash(keyHash);
    return found && { tenant: found.tenant, keyId: found.key.id, keyName: found.key.name };
  }

  staffByTokenHash(tokenHash: string) {
    return this.staffTokens.findActiveByHash(tokenHash);
  }
}
