import { InjectQueue } from '@nestjs/bull';
import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import type { Queue } from 'bull';
import { AppConfig } from '../config/app-config';
import { DeliveryEngine } from './engine/delivery-engine';
import { Sweeper } from './engine/sweeper';
import { DELIVER_JOB, type DeliverJob, WEBHOOKS_QUEUE } from './webhook.queue';

/**
 * The worker side of webhooks: attempts with WEBHOOK_CONCURRENCY per process (registered by hand
 * because the decorator form cannot read the config), and the sweeper. The sweeper is a timer in
 * every worker rather than a repeatable Bull job: it exists to recover from Redis losing jobs, so
 * it must not live in Redis itself. Running it in several workers at once is harmless.
 */
@Injectable()
export class WebhookWorker
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger(WebhookWorker.name);
  private timer?: NodeJS.Timeout;

  constructor(
    @InjectQueue(WEBHOOKS_QUEUE) private readonly queue: Queue<DeliverJob>,
    private readonly engine: DeliveryEngine,
    private readonly sweeper: Sweeper,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.queue
      .process(DELIVER_JOB, this.config.webhook.concurrency, async (job) => {
        await this.engine.runJob(job.data);
      })
      .catch((error: unknown) => this.logger.error({ err: error }, 'Webhook consumer stopped'));
    this.timer = setInterval(() => {
      this.sweeper
        .sweep()
        .then(
          (requeued) => requeued && this.logger.log(`Sweeper re-enqueued ${requeued} deliveries`),
        )
        .catch((error: unknown) => this.logger.warn({ err: error }, 'Webhook sweep failed'));
    }, this.config.webhook.sweepMs);
    this.timer.unref();
  }

  /**
   * Before the database closes: stop taking jobs here, then let the requests in flight end and
   * their records be written (bounded by the attempt timeout). Whatever does not make it is not
   * lost: its claim lapses and the sweeper of another worker retries it.
   */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
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

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }
}
