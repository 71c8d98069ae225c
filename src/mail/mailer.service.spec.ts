import { Logger } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { MailerService } from './mailer.service';

describe('MailerService without SMTP_URL', () => {
  afterEach(() => jest.restoreAllMocks());

  it('in production, logs that a mail was not sent, never its subject or text (the sign-in code)', async () => {
    const lines: string[] = [];
    for (const level of ['log', 'warn', 'error'] as const) {
      jest
        .spyOn(Logger.prototype, level)
        .mockImplementation((...args: unknown[]) => void lines.push(String(args[0])));
    }
    const mailer = new MailerService({ isProduction: true } as AppConfig);
    await mailer.send('p@example.com', 'Acme: your sign-in code 482913', 'Your code is 482913.');
    expect(lines).toEqual(['No SMTP_URL: a mail to p@example.com was not sent']);
  });
});
