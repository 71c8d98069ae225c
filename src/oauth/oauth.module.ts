import { Module } from '@nestjs/common';
import { TenantsModule } from '../tenants/tenants.module';
import { UsersModule } from '../users/users.module';
import { AuthorizeController } from './authorize.controller';
import { MailerService } from './mailer.service';
import { SignInService } from './sign-in.service';

/** The popup sign-in (seed 4.4, SPEC 5) that gives embedded pages their bearer JWT. */
@Module({
  imports: [TenantsModule, UsersModule],
  controllers: [AuthorizeController],
  providers: [MailerService, SignInService],
})
export class OauthModule {}
