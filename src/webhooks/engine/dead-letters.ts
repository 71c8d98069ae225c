import { Injectable, Logger } from '@nestjs/common';
import { AuditService } from '../../audit/audit.service';
import { systemActor } from '../../common/access/actor';
import { TransactionHost } from '../../database/transaction-host';
import { DeliveriesRepository } from './deliveries.repository';
import type { SettleInput } from './deliveries.types';

/**
 * The dead-letter queue is the deliveries in status `dead` (docs/webhooks.md). A dead letter is
 * recorded with its audit entry `webhook.dead_lettered` in one transaction of its own, not in the
 * engine's batched statement (which runs on a connection the audit log cannot join): a delivery is
 * never dead without the entry that tells the tenant's staff.
 */
@Injectable()
export class DeadLetters {
  private readonly logger = new Logger(DeadLetters.name);

  constructor(
    private readonly tx: TransactionHost,
    private readonly deliveries: DeliveriesRepository,
    private readonly audit: AuditService,
  ) {}

  /**
   * Whether the delivery was settled dead. Never throws: a record that fails to be written leaves
   * the claim to lapse, and the delivery is retried.
   */
  async record(input: SettleInput): Promise<boolean> {
    try {
      return await this.tx.transaction(async () => {
        const [done] = await this.deliveries.settleMany([input]);
        if (done) {
          await this.audit.record(
            input.tenantId,
            systemActor('webhooks'),
            'webhook.dead_lettered',
            { type: 'event', id: input.eventId },
            {
              attempts: input.attempt,
              last_status_code: input.statusCode,
              last_error: input.error,
            },
          );
        }
        return done;
      });
    } catch (error) {
      this.logger.warn({ err: error }, 'dead letter not recorded; its claim will lapse');
      return false;
    }
  }
}
