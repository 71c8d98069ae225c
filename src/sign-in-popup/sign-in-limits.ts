import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { RateLimitedError } from '../common/http/rate-limiter';
import { sendResult } from '../common/pages/send';
import { popupError } from './pages';

/**
 * The popup's sign-in steps are limited per client IP (docs/security.md; `@RateLimit('signin_email')`
 * and `'signin_code'`, src/access/rate-limits.ts), on top of the per-email limits the sign-in
 * service counts in PostgreSQL (5 codes per email per hour, 5 tries per code). Those stop one
 * mailbox from being flooded or one code from being guessed; these stop one client from spreading
 * the same over many emails and tenants. Past a limit, this filter answers the popup's own HTML
 * error page `429` with `Retry-After` (seconds) instead of the handler's page.
 */
@Catch(RateLimitedError)
export class SignInLimitPage implements ExceptionFilter {
  catch(error: RateLimitedError, host: ArgumentsHost): void {
    const minutes = Math.max(1, Math.ceil(error.retryAfterSeconds / 60));
    sendResult(
      host.switchToHttp().getResponse<Response>(),
      popupError(
        429,
        'Too many sign-in attempts',
        [
          `Too many sign-in attempts came from your network. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
        ],
        { 'Retry-After': String(error.retryAfterSeconds) },
      ),
    );
  }
}
