import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import { BullModule } from '@nestjs/bull';
import { ScheduleModule } from '@nestjs/schedule';
import { AuditModule } from './audit/audit.module';
import { BonusesModule, BonusesWorkerModule } from './bonuses/bonuses.module';
import { ConsoleModule } from './console/console.module';
import { BacktestModule } from './backtest/backtest.module';
import { BountiesModule } from './bounties/bounties.module';
import { ConversionsModule } from './conversions/conversions.module';
import { DeeplinksModule } from './deeplinks/deeplinks.module';
import { ApplicationsModule } from './applications/applications.module';
import { DemoModule } from './demo/demo.module';
import { BansModule } from './bans/bans.module';
import { EmbedModule } from './embed/embed.module';
import { OutboxModule } from './outbox/outbox.module';
import { PrivacyModule } from './privacy/privacy.module';
import { FastLanesModule } from './fast-lanes/fast-lanes.module';
import { GroupsModule } from './groups/groups.module';
import { IdempotencyModule } from './idempotency/idempotency.module';
import { LeadsModule } from './leads/leads.module';
import {
  NotificationsModule,
  NotificationsWorkerModule,
} from './notifications/notifications.module';
import { PortalModule } from './portal/portal.module';
import { SignInPopupModule } from './sign-in-popup/sign-in-popup.module';
import { OffersModule } from './offers/offers.module';
import { PayoutsModule, PayoutsWorkerModule } from './payouts/payouts.module';
import { AccessModule } from './access/access.module';
import { ProblemFilter } from './common/errors/problem.filter';
import { httpLogOptions } from './common/http/http-log';
import { NoBodyInterceptor } from './common/http/no-body.interceptor';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { HousekeepingModule, HousekeepingWorkerModule } from './housekeeping/housekeeping.module';
import { BullClients, bullRootOptions } from './redis/bull-options';
import { BULL_CLIENTS, RedisModule } from './redis/redis.module';
import { TenantsModule } from './tenants/tenants.module';
import { TransferModule, TransferWorkerModule } from './transfer/transfer.module';
import { MembersModule } from './members/members.module';
import { WebhooksModule, WebhooksWorkerModule } from './webhooks/webhooks.module';
import { WidgetModule } from './widget/widget.module';

@Module({})
export class AppModule {
  /** The whole service for one validated config; `main.ts`, the CLI and the tests all use it. */
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot({ pinoHttp: httpLogOptions(config) }),
        DatabaseModule,
        AccessModule,
        RedisModule,
        // One server, Sentinel or Cluster (docs/operations.md): Bull's clients are made by redis/bull-options.ts.
        BullModule.forRootAsync({
          inject: [BULL_CLIENTS],
          useFactory: (clients: BullClients) => bullRootOptions(config, clients),
        }),
        // The process's own timers (SchedulerRegistry), cleared at shutdown (docs/architecture.md).
        ScheduleModule.forRoot(),
        OutboxModule,
        IdempotencyModule,
        HealthModule,
        AuditModule,
        TenantsModule,
        MembersModule,
        GroupsModule,
        BountiesModule,
        BacktestModule,
        OffersModule,
        LeadsModule,
        BansModule,
        BonusesModule,
        ConversionsModule,
        PayoutsModule,
        WebhooksModule,
        EmbedModule,
        SignInPopupModule,
        DeeplinksModule,
        NotificationsModule,
        PortalModule,
        ApplicationsModule,
        PrivacyModule,
        WidgetModule,
        // The demo tenant and /demo are for development (and the tests): never in production.
        ...(config.isProduction ? [] : [DemoModule]),
        TransferModule,
        ConsoleModule,
        FastLanesModule,
        HousekeepingModule,
        // Queue consumers, repeatable jobs and sweeps run only where PROCESS_ROLE asks for a worker.
        ...(config.processRole === 'api'
          ? []
          : [
              BonusesWorkerModule,
              WebhooksWorkerModule.forRoot(config),
              HousekeepingWorkerModule,
              PayoutsWorkerModule,
              TransferWorkerModule,
              NotificationsWorkerModule,
            ]),
      ],
      providers: [
        { provide: APP_FILTER, useClass: ProblemFilter },
        { provide: APP_INTERCEPTOR, useClass: NoBodyInterceptor },
      ],
    };
  }
}
