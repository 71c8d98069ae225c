import {
  CallHandler,
  ExecutionContext,
  HttpStatus,
  Injectable,
  NestInterceptor,
} from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { createHash } from 'node:crypto';
import { from, lastValueFrom, Observable } from 'rxjs';
import type { AuthenticatedRequest } from '../common/auth/actor';
import { DomainError, ValidationFailedError } from '../common/errors/domain-error';
import { IdempotencyRepository } from './idempotency.repository';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const TTL_MS = 24 * 60 * 60 * 1000;
/** How long a running request holds its key; longer than any request may take. */
const LOCK_MS = 60 * 1000;

/**
 * SPEC 3's `Idempotency-Key` on federation POSTs: the first successful answer is stored and
 * replayed byte for byte (`Idempotent-Replayed: true`) for 24 h per tenant and path; another body
 * under the same key is 422, a duplicate while the first still runs is 409. Failed requests store
 * nothing (they changed nothing), so the same key may be retried after an error.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly keys: IdempotencyRepository,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return from(this.handle(context, next));
  }

  private async handle(context: ExecutionContext, next: CallHandler): Promise<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request & AuthenticatedRequest>();
    const res = http.getResponse<Response>();
    const key = req.header(IDEMPOTENCY_HEADER);
    if (key === undefined || !req.tenant) return lastValueFrom(next.handle());
    if (key.length < 1 || key.length > 255) {
      throw new ValidationFailedError([
        { field: IDEMPOTENCY_HEADER, message: 'must be 1 to 255 characters' },
      ]);
    }

    const tenantId = req.tenant.id;
    const hash = fingerprint(req.body);
    const claim = await this.keys.claim(tenantId, req.path, key, hash, LOCK_MS, TTL_MS);
    if (claim.kind === 'existing') {
      const { row } = claim;
      if (row.requestHash !== hash) {
        throw new DomainError(
          HttpStatus.UNPROCESSABLE_ENTITY,
          'idempotency_key_reused',
          'This Idempotency-Key was used with a different request body.',
        );
      }
      if (row.responseStatus === null || row.responseBody === null) {
        throw new DomainError(
          HttpStatus.CONFLICT,
          'idempotency_key_in_use',
          'A request with this Idempotency-Key is still being processed.',
        );
      }
      // Nest sends the parsed body with JSON.stringify and the route's status: the bytes of the
      // first answer again (a JSON.parse/stringify round trip of stringify output is exact).
      res.setHeader('Idempotent-Replayed', 'true');
      return JSON.parse(row.responseBody) as unknown;
    }

    try {
      const result = await lastValueFrom(next.handle());
      // Express serialises a returned object with JSON.stringify too: the stored bytes and the
      // bytes of the first answer are the same.
      const status =
        this.reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler()) ??
        HttpStatus.CREATED;
      await this.keys.complete(tenantId, req.path, key, status, JSON.stringify(result));
      return result;
    } catch (error) {
      await this.keys.release(tenantId, req.path, key);
      throw error;
    }
  }
}

/** The same JSON body, whatever its key order, has the same fingerprint. */
export function fingerprint(body: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(body ?? {}))
    .digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}
