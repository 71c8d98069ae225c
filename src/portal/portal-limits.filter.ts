import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { RateLimitedError } from '../common/http/rate-limiter';
import { errorPage } from '../common/pages/error-page';
import { sendResult } from '../common/pages/send';

/**
 * The portal's sign-in steps share the popup's per-network limits (`signin_email`,
 * `signin_code`, access/rate-limits.ts) on top of the per-email limits of the sign-in service;
 * past one, this page: 429 with `Retry-After`, in both languages (no tenant is read for it).
 */
@Catch(RateLimitedError)
export class PortalLimitPage implements ExceptionFilter {
  catch(error: RateLimitedError, host: ArgumentsHost): void {
    const minutes = Math.max(1, Math.ceil(error.retryAfterSeconds / 60));
    sendResult(
      host.switchToHttp().getResponse<Response>(),
      errorPage({
        status: 429,
        title: 'Too many sign-in attempts · Слишком много попыток входа',
        lines: [
          `Too many sign-in attempts came from your network. Try again in ${minutes} min.`,
          `Из вашей сети пришло слишком много попыток входа. Попробуйте через ${minutes} мин.`,
        ],
        headers: { 'Retry-After': String(error.retryAfterSeconds) },
      }),
    );
  }
}
