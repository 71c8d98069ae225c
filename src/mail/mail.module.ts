import { Module } from '@nestjs/common';
import { MailerService } from './mailer.service';

/** Outgoing mail (SMTP_URL, MAIL_FROM): sign-in codes, application confirmations, partner mail. */
@Module({
  providers: [MailerService],
  exports: [MailerService],
})
export class MailModule {}
