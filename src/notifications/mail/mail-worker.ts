import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { addInterval } from '../../common/schedule/timers';
import { AppConfig } from '../../config/app-config';
import { MailScanner } from './mail-scanner';
import { MailSender } from './mail-sender';

export const MAIL_INTERVAL = 'notifications.mail';

/** Passes of sending per tick at most, so one tick never runs for ever. */
const MAX_SEND_PASSES = 20;

/** Due digests are looked for this often at most (they fall due once an hour at the earliest). */
const DIGEST_CHECK_MS = 10_000;

/**
 * Partner mail in worker processes (docs/notifications.md): every NOTIFICATION_POLL_MS, read the
 * outbox into mails and digest items, write the digests that are due (looked for every ten
 * seconds), and send what is due.
 * Several workers at once are harmless: reads are idempotent and each mail is claimed by one.
 */
@Injectable()
export class MailWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger(MailWorker.name);
  private running = false;
  private digestsCheckedAt = 0;

  constructor(
    private readonly scanner: MailScanner,
    private readonly sender: MailSender,
    private readonly config: AppConfig,
    private readonly scheduler: SchedulerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    addInterval(
      this.scheduler,
      MAIL_INTERVAL,
      this.config.notificationPollMs,
      () => this.tick(),
      (error: unknown) => this.logger.warn({ err: error }, 'Partner mail pass failed'),
    );
  }

  /** One pass; a pass still running makes the next tick a no-op. */
  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while ((await this.scanner.scan()) > 0);
      if (Date.now() - this.digestsCheckedAt >= DIGEST_CHECK_MS) {
        this.digestsCheckedAt = Date.now();
        await this.sender.makeDigests();
      }
      for (let i = 0; i < MAX_SEND_PASSES && (await this.sender.sendDue()) > 0; i++);
    } finally {
      this.running = false;
    }
  }
}
