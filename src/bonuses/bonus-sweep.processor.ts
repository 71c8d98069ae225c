import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bull';
import { AppConfig } from '../config/app-config';
import { startRepeatableJob } from '../redis/repeatable-job';
import { APPROVE_DUE_JOB, BONUSES_QUEUE } from './bonuses.queue';
import { BonusesService } from './bonuses.service';

/**
 * The grace-period sweep in the worker role: consumes the bonuses queue and keeps exactly one
 * repeatable job every BONUS_APPROVAL_SWEEP_MS (Bull de-duplicates it across workers; a schedule
 * left by an earlier setting is removed). The consumer is registered by hand so that its promise
 * is handled: with Redis down at shutdown, Bull's rejected `process()` would otherwise end the
 * process. Start-up never waits on Redis, and a Redis restarted without persistence gets the
 * schedule again on reconnect. Running the sweep twice at once is harmless.
 */
@Injectable()
export class BonusSweepWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger(BonusSweepWorker.name);

  constructor(
    @InjectQueue(BONUSES_QUEUE) private readonly queue: Queue,
    private readonly bonuses: BonusesService,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    startRepeatableJob(this.queue, this.logger, {
      queueLabel: 'Bonuses',
      job: APPROVE_DUE_JOB,
      handle: async () => ({ approved: await this.bonuses.approveDue() }),
      schedule: () => this.schedule(),
      stopped: 'Bonus sweep consumer stopped',
      unscheduled: 'Could not schedule the grace-period sweep',
    });
  }

  private async schedule(): Promise<void> {
    const every = this.config.bonusApprovalSweepMs;
    for (const job of await this.queue.getRepeatableJobs()) {
      if (job.name === APPROVE_DUE_JOB && Number(job.every) !== every) {
        await this.queue.removeRepeatableByKey(job.key);
      }
    }
    await this.queue.add(
      APPROVE_DUE_JOB,
      {},
      { repeat: { every }, removeOnComplete: true, removeOnFail: 100 },
    );
  }
}
