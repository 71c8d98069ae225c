import { InjectQueue, OnQueueError, Process, Processor } from '@nestjs/bull';
import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  type Type,
} from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { Job, Queue } from 'bull';
import { addInterval, stopInterval } from '../common/schedule/timers';
import { AppConfig } from '../config/app-config';
import { logConsumerStop } from '../redis/repeatable';
import { DeliveryEngine } from './engine/delivery-engine';
import { Sweeper } from './engine/sweeper';
import { DELIVER_JOB, type DeliverJob, WEBHOOKS_QUEUE } from './webhook.queue';

/** The sweeper's timer in SchedulerRegistry. */
export const WEBHOOK_SWEEP_INTERVAL = 'webhooks.sweep';

/**
 * The worker side of webhooks: attempts (the `@Process` consumer declared by webhookConsumer()
 * below, WEBHOOK_CONCURRENCY at once per process), and the sweeper. The sweeper is an interval in
 * every worker's SchedulerRegistry rather than a repeatable Bull job: it exists to recover from
 * Redis losing jobs, so it must not live in Redis itself. Running it in several workers at once is
 * harmless.
 */
@Injectable()
export class WebhookWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(WebhookWorker.name);

  constructor(
    @InjectQueue(WEBHOOKS_QUEUE) private readonly queue: Queue<DeliverJob>,
    private readonly engine: DeliveryEngine,
    private readonly sweeper: Sweeper,
    private readonly config: AppConfig,
    private readonly scheduler: SchedulerRegistry,
  ) {
    logConsumerStop(queue, this.logger, 'Webhook consumer stopped');
  }

  /** One job: its deliveries are claimed, sent and recorded by the engine. */
  async deliver(job: Job<DeliverJob>): Promise<void> {
    await this.engine.runJob(job.data);
  }

  /** Bull re-emits its Redis clients' errors on the queue: unheard, they would end the process. */
  @OnQueueError()
  queueError(error: Error): void {
    this.logger.warn(`Webhooks queue: ${error.message}`);
  }

  onApplicationBootstrap(): void {
    addInterval(
      this.scheduler,
      WEBHOOK_SWEEP_INTERVAL,
      this.config.webhook.sweepMs,
      async () => {
        const requeued = await this.sweeper.sweep();
        if (requeued) this.logger.log(`Sweeper re-enqueued ${requeued} deliveries`);
      },
      (error: unknown) => this.logger.warn({ err: error }, 'Webhook sweep failed'),
    );
  }

  /**
   * Before the database closes: stop sweeping and taking jobs here, then let the requests in
   * flight end and their records be written (bounded by the attempt timeout). Whatever does not
   * make it is not lost: its claim lapses and the sweeper of another worker retries it.
   */
  async beforeApplicationShutdown(): Promise<void> {
    stopInterval(this.scheduler, WEBHOOK_SWEEP_INTERVAL);
    // Draining first turns away jobs still waiting for room in a lane, so the pause is quick.
    const drained = this.engine.drain();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.queue.pause(true).catch(() => undefined),
      new Promise((resolve) => (timer = setTimeout(resolve, this.config.webhook.timeoutMs + 1000))),
    ]);
    clearTimeout(timer);
    await drained;
  }
}

/**
 * The webhook consumer for `concurrency` attempts at once per process. `@Process` takes its
 * concurrency when the class is declared, before any config is injected, so the class is declared
 * here, when WebhooksWorkerModule.forRoot(config) builds the module from the validated config
 * (docs/architecture.md, "Jobs and timers"). Each app gets its own class: two apps in one process
 * (the tests) never share a setting.
 */
export function webhookConsumer(concurrency: number): Type<WebhookWorker> {
  @Processor(WEBHOOKS_QUEUE)
  class WebhookConsumer extends WebhookWorker {
    @Process({ name: DELIVER_JOB, concurrency })
    override deliver(job: Job<DeliverJob>): Promise<void> {
      return super.deliver(job);
    }
  }
  return WebhookConsumer;
}
