import { Injectable } from '@nestjs/common';
import { Retention } from '../../housekeeping/retention.decorator';
import { MailScanRepository } from './mail-scan.repository';

/**
 * Partner mail's retention (docs/notifications.md): the worker's marks of what it has read, a day
 * after. The delivery log and digest items are kept (they are what staff look up).
 */
@Injectable()
export class MailRetention {
  constructor(private readonly scans: MailScanRepository) {}

  @Retention('notificationScans')
  deleteOldScans(): Promise<number> {
    return this.scans.deleteOldScans();
  }
}
