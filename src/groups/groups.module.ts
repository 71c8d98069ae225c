import { Global, Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { TenantsModule } from '../tenants/tenants.module';
import { GROUP_DIRECTORY } from '../members/group-directory';
import { MembersModule } from '../members/members.module';
import { OffersModule } from '../offers/offers.module';
import { GroupDirectoryService } from './group-directory.service';
import { GroupsController } from './groups.controller';
import { GroupsRepository } from './groups.repository';
import { GroupsService } from './groups.service';

/**
 * Partner groups. Global, for it provides the members' port (`GROUP_DIRECTORY`, owned by
 * members/): the upsert names a group by slug and reports a move without importing groups, which
 * counts and moves members and so sits above them.
 */
@Global()
@Module({
  imports: [AuditModule, MembersModule, OffersModule, TenantsModule],
  controllers: [GroupsController],
  providers: [
    GroupsRepository,
    GroupsService,
    GroupDirectoryService,
    { provide: GROUP_DIRECTORY, useExisting: GroupDirectoryService },
  ],
  exports: [GroupsService, GROUP_DIRECTORY],
})
export class GroupsModule {}
