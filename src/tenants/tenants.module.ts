import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { AUTH_LOOKUP } from '../access/auth-lookup';
import { EmbedOriginPolicy } from '../access/embed-origin';
import { StaffTokensController } from './staff-tokens.controller';
import { StaffTokensRepository } from './staff-tokens.repository';
import { TenantCredentialsService } from './tenant-credentials.service';
import { TenantKeysController } from './tenant-keys.controller';
import { TenantKeysRepository } from './tenant-keys.repository';
import { TenantsController } from './tenants.controller';
import { TenantsRepository } from './tenants.repository';
import { TenantsService } from './tenants.service';

@Module({
  imports: [AuditModule],
  controllers: [TenantsController, TenantKeysController, StaffTokensController],
  providers: [
    TenantsRepository,
    TenantKeysRepository,
    StaffTokensRepository,
    TenantsService,
    TenantCredentialsService,
    { provide: AUTH_LOOKUP, useExisting: TenantsService },
    EmbedOriginPolicy,
  ],
  exports: [TenantsService, TenantCredentialsService, AUTH_LOOKUP, EmbedOriginPolicy],
})
export class TenantsModule {}
