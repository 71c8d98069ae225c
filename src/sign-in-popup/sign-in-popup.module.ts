import { type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { PageFormGuard, PageSecurity } from '../common/http/page-security';
import { TenantsModule } from '../tenants/tenants.module';
import { MembersModule } from '../members/members.module';
import { MailModule } from '../mail/mail.module';
import { AuthorizeController } from './authorize.controller';
import { SignInRepository } from './sign-in.repository';
import { SignInService } from './sign-in.service';

/** The popup sign-in (docs/embedding.md §4) that gives embedded pages their bearer JWT. */
@Module({
  imports: [TenantsModule, MembersModule, MailModule],
  controllers: [AuthorizeController],
  providers: [SignInService, SignInRepository, PageSecurity],
  exports: [SignInService],
})
export class SignInPopupModule implements NestModule {
  /** Every post of the popup must be a plain form from the service's own origin. */
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(PageFormGuard).forRoutes(AuthorizeController);
  }
}
