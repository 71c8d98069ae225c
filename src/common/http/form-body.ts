import express, { NextFunction, Request, Response } from 'express';
import typeis from 'type-is';
import { DomainError } from '../errors/domain-error';
import { BODY_LIMIT } from './json-body';
import { bodyProblem, sendErrorPage } from './hostile-input';

const FORM_TYPE = 'application/x-www-form-urlencoded';

/** The paths whose HTML pages post plain forms (popup, landing page, admin pages, partner pages). */
export const FORM_PATHS = ['/oauth', '/s', '/org', '/p'];

/**
 * Form bodies of the HTML pages, answered as HTML like the pages themselves: a body that is not
 * a URL-encoded form is a 415 page, one over 64 KiB (or with over 1000 fields) a 413 page, an
 * unreadable one (a `Content-Encoding` its bytes do not match, a charset other than UTF-8) a
 * 400 or 415 page, and a field with control characters (tab and line breaks aside) a 400 page.
 * A POST without a body gets an empty form, so a page's controller always reads an object.
 */
export function formBodyMiddlewares() {
  const parse = express.urlencoded({ extended: false, limit: BODY_LIMIT });
  return [
    (req: Request, res: Response, next: NextFunction) => {
      const hasBody = typeis.hasBody(req) && req.headers['content-length'] !== '0';
      if (hasBody && !typeis(req, [FORM_TYPE])) {
        return sendErrorPage(
          req,
          res,
          415,
          'This form could not be sent',
          'The page sent its data in a form the service does not read. Reload it and try again.',
        );
      }
      next();
    },
    parse,
    (error: unknown, req: Request, res: Response, next: NextFunction) => {
      const status = (error as { status?: unknown } | null)?.status;
      const fromParser = !(error instanceof DomainError) && typeof status === 'number';
      if (!fromParser || status < 400 || status >= 500) return next(error);
      const tooLarge = status === 413;
      sendErrorPage(
        req,
        res,
        tooLarge ? 413 : status === 415 ? 415 : 400,
        tooLarge ? 'This form is too large' : 'This form could not be read',
        tooLarge
          ? 'What you entered is too long to send. Shorten it and try again.'
          : 'The page sent data the service could not read. Reload it and try again.',
      );
    },
    (req: Request, res: Response, next: NextFunction) => {
      if (req.body === undefined && req.method !== 'GET' && req.method !== 'HEAD') req.body = {};
      if (req.body !== undefined && bodyProblem(req.body)) {
        return sendErrorPage(
          req,
          res,
          400,
          'This form could not be read',
          'A field contains characters that cannot be part of it. Check what you entered.',
        );
      }
      next();
    },
  ];
}
