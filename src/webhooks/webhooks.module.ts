import { BullModule } from '@nestjs/bull';
import { DynamicModule, Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { AppConfig } from '../config/app-config';
import { RETRY_PROCESS_DELAY_MS } from '../redis/bull-options';
import { Admission } from './engine/admission';
import { AttemptRecords } from './engine/attempt-records';
import { AttemptSender } from './engine/attempt-sender';
import { DeadLetters } from './engine/dead-letters';
import { DeliveryRetention } from './engine/delivery-retention';
import { DeliveryEngine } from './engine/delivery-engine';
import { DeliveryJobs } from './engine/delivery-jobs';
import { DeliveriesRepository } from './engine/deliveries.repository';
import { EngineConnection } from './engine/engine-connection';
import { EngineSettings } from './engine/engine-settings';
import { Lanes } from './engine/lanes';
import { Replays } from './engine/replays';
import { SendPool } from './engine/send-pool';
import { StatementLoop } from './engine/statement-loop';
import { Sweeper } from './engine/sweeper';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { OpenedSecrets } from './opened-secrets';
import { WebhookSender } from './webhook-sender';
import { webhookConsumer, WebhookWorker } from './webhook.processor';
import { WEBHOOKS_QUEUE } from './webhook.queue';
import { WebhooksAdminController } from './webhooks-admin.controller';
import { WebhooksService } from './webhooks.service';

/**
 * The queue's job lock outlasts an attempt, so Bull never hands a running attempt to another
 * worker. After a Redis outage workers fetch again at once (RETRY_PROCESS_DELAY_MS, with the
 * reconnect back-off of BullModule.forRoot) and look for due retries every second rather than
 * every 5 s (guardInterval), so deliveries resume within about a second of Redis coming back.
 */
const webhooksQueue = BullModule.registerQueueAsync({
  name: WEBHOOKS_QUEUE,
  inject: [AppConfig],
  useFactory: (config: AppConfig) => ({
    settings: {
      lockDuration: 2 * config.webhook.timeoutMs + 30_000,
      retryProcessDelay: RETRY_PROCESS_DELAY_MS,
      guardInterval: 1000,
    },
  }),
});

@Module({
  imports: [AuditModule, webhooksQueue],
  controllers: [WebhooksAdminController],
  providers: [
    WebhookEndpointsRepository,
    WebhookSender,
    OpenedSecrets,
    // The delivery engine, one job per provider (engine/delivery-engine.ts tells how they meet).
    EngineSettings,
    EngineConnection,
    DeliveriesRepository,
    DeliveryJobs,
    Lanes,
    StatementLoop,
    Admission,
    AttemptSender,
    AttemptRecords,
    DeadLetters,
    SendPool,
    Sweeper,
    Replays,
    DeliveryRetention,
    DeliveryEngine,
    WebhooksService,
  ],
  exports: [DeliveryEngine, Sweeper, WebhooksService],
})
export class WebhooksModule {}

/**
 * Loaded by the worker role only: attempts deliveries and runs the sweeper. Built from the config
 * (AppModule.forRoot) because the consumer's concurrency is part of its `@Process` declaration
 * (webhookConsumer()).
 */
@Module({})
export class WebhooksWorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WebhooksWorkerModule,
      imports: [WebhooksModule, webhooksQueue],
      providers: [
        { provide: WebhookWorker, useClass: webhookConsumer(config.webhook.concurrency) },
      ],
    };
  }
}
