import { InjectQueue, OnQueueError, Process, Processor } from '@nestjs/bull';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bull';
import { AppConfig } from '../config/app-config';
import { keepRepeatable, logConsumerStop, scheduleOnConnect } from '../redis/repeatable';
import { APPROVE_DUE_JOB, BONUSES_QUEUE } from './bonuses.queue';
import { BonusesService } from './bonuses.service';

/**
 * The grace-period sweep in the worker role: consumes the bonuses queue and keeps exactly one
 * repeatable job every BONUS_APPROVAL_SWEEP_MS, under a stable job id, so several workers add one
 * schedule (redis/repeatable.ts; a schedule left by an earlier setting is removed). Start-up never
 * waits on Redis, and a Redis restarted without persistence gets the schedule again on reconnect.
 * Running the sweep twice at once is harmless.
 */
@Processor(BONUSES_QUEUE)
export class BonusSweepWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger(BonusSweepWorker.name);

  constructor(
    @InjectQueue(BONUSES_QUEUE) private readonly queue: Queue,
    private readonly bonuses: BonusesService,
    private readonly config: AppConfig,
  ) {
    logConsumerStop(queue, this.logger, 'Bonus sweep consumer stopped');
  }

  @Process(APPROVE_DUE_JOB)
  async approveDue(): Promise<{ approved: number }> {
    return { approved: await this.bonuses.approveDue() };
  }

  /** Bull re-emits its Redis clients' errors on the queue: unheard, they would end the process. */
  @OnQueueError()
  queueError(error: Error): void {
    this.logger.warn(`Bonuses queue: ${error.message}`);
  }

  onApplicationBootstrap(): void {
    scheduleOnConnect(this.queue, this.logger, 'Could not schedule the grace-period sweep', () =>
      keepRepeatable(this.queue, APPROVE_DUE_JOB, { every: this.config.bonusApprovalSweepMs }),
    );
  }
}
