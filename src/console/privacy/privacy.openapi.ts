import { applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiResponse } from '@nestjs/swagger';
import {
  ApiFormBody,
  ApiHtmlPages,
  ApiRedirect,
  type SchemaObject,
} from '../../common/http/html-openapi';
import { PersonalDataResponse } from '../../privacy/dto/privacy.dto';
import { CSRF, refusedOn, staffOf } from '../org-page.openapi';

/** OpenAPI of the console's privacy actions (docs/privacy.md): owner only, each confirmed. */

const CONFIRM: SchemaObject = {
  type: 'string',
  enum: ['ERASE'],
  description: 'The word ERASE, typed to confirm',
};

const ownerAction = (summary: string, fields: Record<string, SchemaObject>, back: string) =>
  applyDecorators(
    ApiOperation({
      summary,
      description: `${staffOf('owner')} Redirects back with \`notice\` or \`error\`.`,
    }),
    ApiFormBody({ _csrf: CSRF, confirm: CONFIRM, ...fields }, ['_csrf', 'confirm']),
    ApiRedirect(303, 'Back to the page', back),
    ApiHtmlPages(...refusedOn('partner')),
  );

export const PrivacyDocs = {
  erase: () =>
    ownerAction(
      "Erases the partner's personal data (docs/privacy.md)",
      {},
      '/org/{slug}/partners/{user_id}',
    ),
  eraseCustomer: () =>
    ownerAction(
      'Erases a referred customer by email, phone or external id (docs/privacy.md)',
      {
        email: { type: 'string', format: 'email' },
        phone: { type: 'string' },
        external_id: { type: 'string' },
      },
      '/org/{slug}/leads',
    ),
  personalData: () =>
    applyDecorators(
      ApiOperation({
        summary: 'Every personal field held about the partner, as a JSON file (docs/privacy.md)',
        description: staffOf('owner'),
      }),
      ApiProduces('application/json'),
      ApiResponse({
        status: 200,
        description: 'The subject-access export, as GET …/users/:user_id/personal-data answers',
        type: PersonalDataResponse,
      }),
      ApiHtmlPages(...refusedOn('partner')),
      ApiRedirect(303, 'No session: to the sign-in page', '/org/sign-in'),
    ),
};
