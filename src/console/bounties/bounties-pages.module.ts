import { type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { BountiesModule } from '../../bounties/bounties.module';
import { PageSecurity, PageFormGuard } from '../../common/http/page-security';
import { BountiesPagesController } from './bounties-pages.controller';

/**
 * The console's bounties page (docs/console.md). Part of ConsoleModule; the same session, role
 * and CSRF rules.
 */
@Module({
  imports: [BountiesModule],
  controllers: [BountiesPagesController],
  providers: [PageSecurity],
})
export class ConsoleBountiesModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(PageFormGuard).forRoutes(BountiesPagesController);
  }
}
