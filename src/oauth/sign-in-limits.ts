import {
  applyDecorators,
  type CallHandler,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
  SetMetadata,
  UseInterceptors,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { type Observable, of } from 'rxjs';
import { DomainError } from '../common/errors/domain-error';
import { RateLimiter } from '../common/http/rate-limiter';
import { popupError } from './pages';

/**
 * Per-IP limits of the popup's sign-in steps (issue #15), on top of the per-email ones the sign-in
 * service counts in PostgreSQL (5 codes per email per hour, 5 tries per code). Those stop one
 * mailbox from being flooded or one code from being guessed; these stop one client from spreading
 * the same over many emails and tenants: mailing codes to a list of addresses, or trying codes
 * for many of them. Counted per client IP (`req.ip`, see TRUST_PROXY) across tenants, in fixed
 * 10-minute windows in Redis, so they hold across instances; every post of the step counts.
 */
export const SIGN_IN_IP_LIMITS = {
  /** POST /oauth/authorize/email: codes requested. */
  email: { bucket: 'signin_email', limit: 20, windowSeconds: 600 },
  /** POST /oauth/authorize/code: codes tried. */
  code: { bucket: 'signin_code', limit: 30, windowSeconds: 600 },
} as const;
export type SignInStep = keyof typeof SIGN_IN_IP_LIMITS;

const STEP = 'signInIpLimitStep';

/**
 * Counts the request against its step's per-IP limit; over it, answers the popup's own HTML error
 * page `429` with `Retry-After` (seconds) instead of running the handler (PageInterceptor sends
 * it, as it sends the handler's pages).
 */
@Injectable()
export class SignInIpLimitInterceptor implements NestInterceptor {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly reflector: Reflector,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const step = this.reflector.get<SignInStep | undefined>(STEP, context.getHandler());
    if (!step) return next.handle();
    const { bucket, limit, windowSeconds } = SIGN_IN_IP_LIMITS[step];
    const http = context.switchToHttp();
    try {
      await this.limiter.consume(bucket, http.getRequest<Request>().ip ?? '', limit, windowSeconds);
    } catch (error) {
      if (!(error instanceof DomainError) || Number(error.status) !== 429) throw error;
      const retryAfter = Number(error.headers?.['Retry-After'] ?? windowSeconds);
      const minutes = Math.max(1, Math.ceil(retryAfter / 60));
      return of(
        popupError(
          429,
          'Too many sign-in attempts',
          [
            `Too many sign-in attempts came from your network. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
          ],
          { 'Retry-After': String(retryAfter) },
        ),
      );
    }
    return next.handle();
  }
}

/** Puts the handler under its step's per-IP limit. */
export const LimitedPerIp = (step: SignInStep) =>
  applyDecorators(SetMetadata(STEP, step), UseInterceptors(SignInIpLimitInterceptor));
