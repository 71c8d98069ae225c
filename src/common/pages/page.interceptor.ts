import {
  type CallHandler,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { map, type Observable } from 'rxjs';
import { BACK_METADATA, type BackTarget, isPageResult, PAGE_BACK } from './page';
import { prepareResult } from './send';

/** A request of a page, with where a failed form post of it goes back to (PageFilter). */
export interface PageRequest extends Request {
  [PAGE_BACK]?: string;
}

/**
 * Sends what a page handler returns (an HtmlPage or a Redirect, never a write to `@Res()`) with
 * the pages' headers, and notes where the handler's `@Back()` target is, so that PageFilter can
 * answer a failed form post with post/redirect/get.
 */
@Injectable()
export class PageInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<string | undefined> {
    const http = context.switchToHttp();
    const req = http.getRequest<PageRequest>();
    const back = this.reflector.get<BackTarget | undefined>(BACK_METADATA, context.getHandler());
    if (back) req[PAGE_BACK] = back(req.params as Record<string, string>);
    return next.handle().pipe(
      map((result: unknown) => {
        if (!isPageResult(result)) {
          throw new Error(`${context.getClass().name}.${context.getHandler().name}: not a page`);
        }
        return prepareResult(http.getResponse<Response>(), result);
      }),
    );
  }
}
