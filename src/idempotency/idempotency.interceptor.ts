import {
  CallHandler,
  ExecutionContext,
  HttpStatus,
  Injectable,
  NestInterceptor,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { createHash } from 'node:crypto';
import { from, lastValueFrom, Observable } from 'rxjs';
import type { AuthenticatedRequest } from '../access/principal';
import { DomainError, ValidationFailedError } from '../common/errors/domain-error';
import { ROUTE_METADATA } from '../common/http/route-metadata';
import { TransactionHost } from '../database/transaction-host';
import { IdempotencyRepository } from './idempotency.repository';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const TTL_MS = 24 * 60 * 60 * 1000;

/**
 * docs/money.md's `Idempotency-Key` on federation POSTs: the first successful answer is stored and
 * replayed byte for byte (`Idempotent-Replayed: true`) for 24 h per tenant and route; another
 * body under the same key is 422, a duplicate while the first still runs is 409.
 *
 * The handler runs inside one transaction with the key's lock and the stored answer, so a crash
 * at any instant leaves either the change with its answer or neither: a retry never repeats a
 * committed change. Failed requests roll back and store nothing, so the key may be used again.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly keys: IdempotencyRepository,
    private readonly tx: TransactionHost,
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
    const scope = routeScope(req);
    const requestHash = fingerprint(req.body);
    const status =
      this.reflector.get<number | undefined>(ROUTE_METADATA.httpCode, context.getHandler()) ??
      HttpStatus.CREATED;
    return this.tx.transaction(async () => {
      if (!(await this.keys.tryLock(tenantId, scope, key))) {
        throw new DomainError(
          HttpStatus.CONFLICT,
          'idempotency_key_in_use',
          'A request with this Idempotency-Key is still being processed.',
        );
      }
      const found = await this.keys.find(tenantId, scope, key);
      if (found) {
        if (found.requestHash !== requestHash) {
          throw new DomainError(
            HttpStatus.UNPROCESSABLE_ENTITY,
            'idempotency_key_reused',
            'This Idempotency-Key was used with a different request body.',
          );
        }
        // Nest sends the parsed body with JSON.stringify and the route's status: the bytes of
        // the first answer again (a JSON.parse/stringify round trip of stringify output is exact).
        res.setHeader('Idempotent-Replayed', 'true');
        return JSON.parse(found.body) as unknown;
      }
      // The services' own transactions join this one (TransactionHost), as do their events.
      const result = await lastValueFrom(next.handle());
      // Express serialises a returned object with JSON.stringify too: the stored bytes and the
      // bytes of the first answer are the same.
      const stored = await this.keys.store(
        tenantId,
        scope,
        key,
        { requestHash, status, body: JSON.stringify(result) },
        TTL_MS,
      );
      // Defence in depth: a live answer appeared under the key while this request ran, so another
      // execution got past the lock. Fail this one; throwing rolls back its transaction, so its
      // effects are not committed and the first answer stays the one replayed.
      if (!stored) throw new IdempotencyKeyConflictError();
      return result;
    });
  }
}

/** A live answer is already stored under the key this request was about to answer. */
class IdempotencyKeyConflictError extends DomainError {
  constructor() {
    super(
      HttpStatus.CONFLICT,
      'idempotency_key_conflict',
      'Another request with this Idempotency-Key completed while this one ran; this one was rolled back. Retry to get the stored answer.',
    );
  }
}

/**
 * The route that handled the request with its parameters filled in, so every spelling of one
 * URL (`/leads`, `/leads/`, percent-encoded ids) shares one scope.
 */
export function routeScope(req: Request): string {
  const template = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof template !== 'string') return req.path;
  return template.replace(/:(\w+)/g, (_, name: string) =>
    encodeURIComponent(String(req.params[name] ?? '')),
  );
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
