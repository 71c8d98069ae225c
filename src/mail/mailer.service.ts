import { Injectable, Logger } from '@nestjs/common';
import nodemailer, { type SendMailOptions, type Transporter } from 'nodemailer';
import { AppConfig } from '../config/app-config';

/** Mail over SMTP (SMTP_URL); outside production without SMTP_URL, into the log. */
@Injectable()
export class MailerService {
  private readonly logger = new Logger(MailerService.name);
  private readonly transport?: Transporter;

  constructor(private readonly config: AppConfig) {
    if (config.smtpUrl) this.transport = nodemailer.createTransport(config.smtpUrl);
  }

  async send(to: string, subject: string, text: string): Promise<void> {
    if (!this.transport) {
      if (this.config.isProduction) {
        // Not the subject or text: they carry the sign-in code, a credential (docs/security.md).
        this.logger.error(`No SMTP_URL: a mail to ${to} was not sent`);
      } else {
        this.logger.warn(`Mail (no SMTP_URL, development) to ${to}: ${subject}\n${text}`);
      }
      return;
    }
    await this.transport.sendMail({ from: this.config.mailFrom, to, subject, text });
  }

  /**
   * A partner mail (docs/notifications.md): nodemailer builds the MIME (multipart/alternative
   * when both text and HTML are given). Throws what the SMTP server refused, with nodemailer's
   * `responseCode` (5xx: permanent). Without SMTP_URL: logged (its subject only) outside
   * production, an error in production.
   */
  async deliver(message: SendMailOptions & { to: string; subject: string }): Promise<void> {
    if (!this.transport) {
      if (this.config.isProduction) throw new Error('No SMTP_URL: partner mail is not sent');
      this.logger.debug(`Mail (no SMTP_URL, development) to ${message.to}: ${message.subject}`);
      return;
    }
    await this.transport.sendMail(message);
  }
}
