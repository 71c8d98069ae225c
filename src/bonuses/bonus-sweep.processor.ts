import { InjectQueue, Process, Processor } from '@nestjs/bull';
import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bull';
import { AppConfig } from '../config/app-config';
import { APPROVE_DUE_JOB, BONUSES_QUEUE } from './bonuses.queue';
import { BonusesService } from './bonuses.service';

/** Runs the grace-period sweep (worker role only). Running it twice at once is harmless. */
@Processor(BONUSES_QUEUE)
export class BonusSweepProcessor {
  constructor(private readonly bonuses: BonusesService) {}

  @Process(APPROVE_DUE_JOB)
  async approveDue(): Promise<{ approved: number }> {
    return { approved: await this.bonuses.approveDue() };
  }
}

/**
 * Keeps exactly one repeatable sweep job, every BONUS_APPROVAL_SWEEP_MS; Bull de-duplicates it
 * across workers, and a schedule left by an earlier setting is removed.
 */
@Injectable()
export class BonusSweepScheduler implements OnApplicationBootstrap {
  private readonly logger = new Logger(BonusSweepScheduler.name);

  constructor(
    @InjectQueue(BONUSES_QUEUE) private readonly queue: Queue,
    private readonly config: AppConfig,
  ) {}

  /** Never blocks start-up: with Redis down, Bull would wait for it indefinitely. */
  onApplicationBootstrap(): void {
    // Bull re-emits its Redis clients' errors on the queue; unheard, they would crash the process.
    this.queue.on('error', (error: Error) => this.logger.warn(`Bonuses queue: ${error.message}`));
    const schedule = () =>
      this.schedule().catch((error: unknown) =>
        this.logger.error({ err: error }, 'Could not schedule the grace-period sweep'),
      );
    // A Redis restarted without persistence forgets repeatable jobs: schedule again on reconnect.
    this.queue.client.on('ready', () => void schedule());
    void schedule();
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
