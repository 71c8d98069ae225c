import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { MemberGroupsRepository } from './member-groups.repository';
import { MemberImportRepository } from './member-import.repository';
import { MemberErasureService } from './member-erasure.service';
import { MemberImportService } from './member-import.service';
import { MembersAdminController } from './members-admin.controller';
import { MembersRepository } from './members.repository';
import { ServiceUsersRepository } from './service-users.repository';
import { MembersController } from './members.controller';
import { MembersService } from './members.service';

@Module({
  imports: [AuditModule],
  controllers: [MembersController, MembersAdminController],
  providers: [
    MembersRepository,
    MemberGroupsRepository,
    ServiceUsersRepository,
    MembersService,
    MemberImportService,
    MemberImportRepository,
    MemberErasureService,
  ],
  exports: [MembersService, MemberImportService, MemberErasureService],
})
export class MembersModule {}
