import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { ValidationFailedError } from '../errors/domain-error';
import { JSON_API } from './json-body';
import { routeArgs } from './route-metadata';

/**
 * README.md, "API overview": unknown body fields are refused, never dropped. A JSON route that
 * declares no `@Body()` (approve, activate, webhook test, secret rotation…) takes no fields at all,
 * so a body with any is `400 validation_failed` naming them, as the ValidationPipe does for routes
 * with a DTO. An empty object or no body is fine.
 */
@Injectable()
export class NoBodyInterceptor implements NestInterceptor {
  private readonly takesBody = new WeakMap<object, boolean>();

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const req = context.switchToHttp().getRequest<Request>();
    const body = req.body as unknown;
    if (
      body &&
      typeof body === 'object' &&
      Object.keys(body).length &&
      JSON_API.test(req.path) &&
      !this.declaresBody(context)
    ) {
      throw new ValidationFailedError(
        Object.keys(body).map((field) => ({ field, message: 'is not accepted by this endpoint' })),
        'This endpoint takes no body fields.',
      );
    }
    return next.handle();
  }

  private declaresBody(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let known = this.takesBody.get(handler);
    if (known === undefined) {
      known = routeArgs(context.getClass(), handler.name).some(({ kind }) =>
        ['body', 'raw-body', 'req'].includes(kind),
      );
      this.takesBody.set(handler, known);
    }
    return known;
  }
}
