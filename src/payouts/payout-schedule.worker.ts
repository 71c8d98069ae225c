import { InjectQueue, OnQueueError, Process, Processor } from '@nestjs/bull';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bull';
import { systemActor } from '../common/access/actor';
import { keepRepeatable, logConsumerStop, scheduleOnConnect } from '../redis/repeatable';
import { TenantsService } from '../tenants/tenants.service';
import { scheduleDue, withPayoutDefaults } from '../tenants/payout-settings';
import { PAYOUTS_QUEUE, SCHEDULED_RUNS_CRON, SCHEDULED_RUNS_JOB } from './payouts.queue';
import { PayoutsRepository } from './payouts.repository';
import { PayoutsService } from './payouts.service';

/**
 * The tenants' payout schedules in the worker role: one repeatable Bull job at 00:00 UTC, under a
 * stable job id so several workers add one schedule (redis/repeatable.ts), runs every tenant whose
 * `weekly:`/`monthly:` day it is. The run's `schedule_key` (the UTC date) makes that day's run
 * happen once even if the job fires twice or two workers take it.
 */
@Processor(PAYOUTS_QUEUE)
export class PayoutScheduleWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger(PayoutScheduleWorker.name);

  constructor(
    @InjectQueue(PAYOUTS_QUEUE) private readonly queue: Queue,
    private readonly payouts: PayoutsService,
    private readonly repository: PayoutsRepository,
    private readonly tenants: TenantsService,
  ) {
    logConsumerStop(queue, this.logger, 'Payout schedule stopped');
  }

  @Process(SCHEDULED_RUNS_JOB)
  async scheduledRuns(): Promise<{ runs: number }> {
    return { runs: await this.runDue(new Date()) };
  }

  /** Bull re-emits its Redis clients' errors on the queue: unheard, they would end the process. */
  @OnQueueError()
  queueError(error: Error): void {
    this.logger.warn(`Payouts queue: ${error.message}`);
  }

  onApplicationBootstrap(): void {
    scheduleOnConnect(this.queue, this.logger, 'Could not schedule the payout runs', () =>
      keepRepeatable(this.queue, SCHEDULED_RUNS_JOB, { cron: SCHEDULED_RUNS_CRON, tz: 'UTC' }),
    );
  }

  /** Runs every tenant whose schedule falls on the UTC day of `at`; answers how many ran. */
  async runDue(at: Date): Promise<number> {
    const day = at.toISOString().slice(0, 10);
    let runs = 0;
    for (const { id, payouts } of await this.repository.scheduledTenants()) {
      if (!scheduleDue(withPayoutDefaults(payouts).schedule, at)) continue;
      const tenant = await this.tenants.tenantById(id);
      if (!tenant) continue;
      try {
        const run = await this.payouts.run(tenant, systemActor('schedule'), day);
        if (run) runs++;
      } catch (error) {
        this.logger.error({ err: error, tenant: id }, 'Scheduled payout run failed');
      }
    }
    return runs;
  }
}
