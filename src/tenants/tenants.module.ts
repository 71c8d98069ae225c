import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { StaffTokensController } from './staff-tokens.controller';
import { StaffTokensRepository } from './staff-tokens.repository';
import { TenantCredentialsService } from './tenant-credentials.service';
import { TenantKeysController } from './tenant-keys.controller';
import { TenantKeysRepository } from './tenant-keys.repository';
import { TenantLookupsRepository } from './tenant-lookups.repository';
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
    TenantLookupsRepository,
    TenantsService,
    TenantCredentialsService,
  ],
  exports: [TenantsService, TenantCredentialsService],
})
export class TenantsModule {}
