import { type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { ApplicationsModule } from '../../applications/applications.module';
import { PageFormGuard, PageSecurity } from '../../common/http/page-security';
import { GroupsModule } from '../../groups/groups.module';
import { ApplicationsPagesController } from './applications-pages.controller';

/**
 * The console's applications page (docs/console.md). Part of ConsoleModule; the same session,
 * role and CSRF rules.
 */
@Module({
  imports: [ApplicationsModule, GroupsModule],
  controllers: [ApplicationsPagesController],
  providers: [PageSecurity],
})
export class ConsoleApplicationsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(PageFormGuard).forRoutes(ApplicationsPagesController);
  }
}
