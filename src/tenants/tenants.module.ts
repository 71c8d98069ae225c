import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { ProgramVersionsController } from './program-versions.controller';
import { ProgramVersionsRepository } from './program-versions.repository';
import { ProgramVersionsService } from './program-versions.service';
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
  controllers: [
    TenantsController,
    TenantKeysController,
    StaffTokensController,
    ProgramVersionsController,
  ],
  providers: [
    TenantsRepository,
    TenantKeysRepository,
    StaffTokensRepository,
    TenantLookupsRepository,
    TenantsService,
    TenantCredentialsService,
    ProgramVersionsRepository,
    ProgramVersionsService,
  ],
  exports: [TenantsService, TenantCredentialsService, ProgramVersionsService],
})
export class TenantsModule {}
