import { applyDecorators, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { IdempotencyInterceptor } from './idempotency.interceptor';

/** Honours an optional `Idempotency-Key` header on the route (docs/money.md). */
export const Idempotent = () =>
  applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        '1–255 characters. The first successful answer is replayed byte for byte for 24 h ' +
        '(with Idempotent-Replayed: true); a different body under the same key is 422 ' +
        'idempotency_key_reused; while the first request runs, 409 idempotency_key_in_use; ' +
        'if an answer was stored under the key while this request ran, 409 ' +
        'idempotency_key_conflict and nothing of this request is kept.',
    }),
  );
