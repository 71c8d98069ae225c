import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  HttpStatus,
  Inject,
  Logger,
  Optional,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { DatabaseError } from 'pg';
import { QueryFailedError } from 'typeorm';
import { HTML_SURFACE } from '../http/hostile-input';
import { serverErrorPage } from '../pages/error-page';
import { sendResult } from '../pages/send';
import { DatabaseUnavailableError, DomainError } from './domain-error';
import { PROBLEM_CONTENT_TYPE, Problem, problem } from './problem';
import { isDatabaseUnavailable, mapPgError } from './pg-errors';

/**
 * The one place errors become responses (docs/architecture.md, "Request pipeline"): DomainErrors,
 * Nest's HTTP exceptions (body-parser failures arrive as DomainErrors, see json-body.ts) and
 * PostgreSQL errors all leave as problem+json. Anything unexpected is logged with its stack and
 * answered `500 internal_error`, nothing more.
 */
/**
 * Headers an error answer needs that only a feature can tell (the Embed APIs' CORS on errors raised
 * before the guard checked the Origin): provided under ERROR_HEADERS, so `common/` imports no
 * feature. Undefined: nothing to add.
 */
export interface ErrorHeaders {
  of(req: Request, res: Response): Promise<Record<string, string>> | undefined;
}
export const ERROR_HEADERS = Symbol('ERROR_HEADERS');

@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemFilter');

  constructor(@Optional() @Inject(ERROR_HEADERS) private readonly extra?: ErrorHeaders) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request>();
    const res = ctx.getResponse<Response>();
    const error = isDatabaseUnavailable(exception) ? new DatabaseUnavailableError() : exception;
    const body = this.toProblem(error, req);
    if (error instanceof DomainError && error.headers) {
      for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
    }
    if (res.headersSent) return;
    const extra = this.extra?.of(req, res);
    if (extra) {
      extra.then(
        (headers) => {
          for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
          this.send(req, res, body);
        },
        () => this.send(req, res, body),
      );
      return;
    }
    this.send(req, res, body);
  }

  private send(req: Request, res: Response, body: Problem): void {
    if (res.headersSent) return;
    if (body.status >= 500 && HTML_SURFACE.test(req.originalUrl)) {
      // A person is looking at a page: an HTML page that says to try again, not JSON.
      return sendResult(res, serverErrorPage(req, body.status, body.request_id));
    }
    res.status(body.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
  }

  private toProblem(exception: unknown, req: Request): Problem {
    const requestId = req.id as string | undefined;
    if (exception instanceof DomainError) {
      return problem(
        exception.status,
        exception.code,
        exception.detail,
        requestId,
        exception.errors,
        exception.errorCount,
      );
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === 404) {
        return problem(404, 'not_found', `No route for ${req.method} ${req.path}.`, requestId);
      }
      if (status < 500) return problem(status, codeForStatus(status), exception.message, requestId);
    }
    if (exception instanceof QueryFailedError || exception instanceof DatabaseError) {
      const mapped = mapPgError(exception);
      if (mapped) return problem(mapped.status, mapped.code, mapped.detail, requestId);
    }
    this.logger.error({ err: exception, requestId }, 'Unhandled error');
    return problem(
      HttpStatus.INTERNAL_SERVER_ERROR,
      'internal_error',
      'Something went wrong on our side.',
      requestId,
    );
  }
}

function codeForStatus(status: number): string {
  switch (status) {
    case 400:
      return 'validation_failed';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 405:
      return 'method_not_allowed';
    case 409:
      return 'conflict';
    case 413:
      return 'payload_too_large';
    case 415:
      return 'unsupported_media_type';
    case 429:
      return 'rate_limited';
    default:
      return 'error';
  }
}
