import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { MemberImportRepository } from './member-import.repository';
import { MemberImportService } from './member-import.service';
import { MembersAdminController } from './members-admin.controller';
import { MembersRepository } from './members.repository';
import { ServiceUsersRepository } from './service-users.repository';
import { UsersController } from './users.controller';
import { UsersService } from './users.service';

@Module({
  imports: [AuditModule],
  controllers: [UsersController, MembersAdminController],
  providers: [
    MembersRepository,
    ServiceUsersRepository,
    UsersService,
    MemberImportService,
    MemberImportRepository,
  ],
  exports: [UsersService, MemberImportService],
})
export class MembersModule {}
