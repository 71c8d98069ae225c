import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { DomainError } from '../errors/domain-error';
import { errorPage, isPopupRequest, serverErrorPage } from './error-page';
import type { PageRequest } from './page.interceptor';
import { PAGE_BACK, PageException, Redirect, withQuery } from './page';
import { sendResult } from './send';

/**
 * The error path of the pages (`@Pages()` controllers). A PageException is answered with its page
 * or redirect. A DomainError on a form post with a `@Back()` target goes back there with the
 * message (post/redirect/get); any other is an HTML error page with the error's status and
 * headers (`Retry-After`). Errors that are not the domain's go on to ProblemFilter, which also
 * answers people on the pages with an HTML page.
 */
@Catch(DomainError, PageException)
export class PageFilter implements ExceptionFilter {
  catch(exception: DomainError | PageException, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<PageRequest>();
    const res = http.getResponse<Response>();
    if (exception instanceof PageException) return sendResult(res, exception.result);
    const status = Number(exception.status);
    if (status >= 500) {
      return sendResult(res, serverErrorPage(req, status, req.id as string, exception.headers));
    }
    const message = messageOf(exception);
    const back = req[PAGE_BACK];
    if (back && req.method === 'POST') {
      return sendResult(res, new Redirect(withQuery(back, { error: message })));
    }
    sendResult(
      res,
      errorPage({
        status,
        title: status === 404 ? 'Not found' : 'Not possible',
        lines: [message],
        headers: exception.headers,
        keepOpener: isPopupRequest(req),
      }),
    );
  }
}

/** What a person is told: the detail, or each field and what is wrong with it. */
export function messageOf(error: DomainError): string {
  return error.errors?.length
    ? error.errors.map((e) => `${e.field}: ${e.message}`).join('; ')
    : error.detail;
}
