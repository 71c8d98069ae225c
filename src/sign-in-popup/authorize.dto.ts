import { Equals, IsString, Length, Matches } from 'class-validator';
import { FormText } from '../common/pages/form';
import { Optional } from '../common/validation/optional';

/**
 * The popup's five parameters (docs/embedding.md §4): the query of its first page, then hidden
 * fields of each of its forms. A refusal is the popup's own 400 page, never a problem document.
 */
export class AuthorizeParams {
  @Matches(/^[a-z0-9][a-z0-9-]{1,62}$/, { message: 'must be a tenant slug' })
  client_id: string;

  @Equals('code', { message: 'must be "code"' })
  response_type: 'code';

  @Equals('profile:read', { message: 'must be "profile:read"' })
  scope: 'profile:read';

  @IsString({ message: 'must be 1 to 512 characters' })
  @Length(1, 512, { message: 'must be 1 to 512 characters' })
  state: string;

  @Equals('1', { message: 'must be "1"' })
  popup: '1';
}

/** The five parameters alone, whatever else the object carries. */
export function paramsOf(source: AuthorizeParams): AuthorizeParams {
  const { client_id, response_type, scope, state, popup } = source;
  return { client_id, response_type, scope, state, popup };
}

export function authorizeQuery(params: AuthorizeParams): string {
  return new URLSearchParams({ ...paramsOf(params) }).toString();
}

/** The email step. A malformed email is not a refusal: the email form is shown again. */
export class EmailStepForm extends AuthorizeParams {
  @FormText()
  @Optional()
  @IsString()
  email?: string;
}

/** The code step; a wrong code shows the code form again. */
export class CodeStepForm extends EmailStepForm {
  @FormText()
  @Optional()
  @IsString()
  code?: string;
}

/** The consent step: `allow`, `switch` ("Use another account"); anything else denies. */
export class DecisionForm extends AuthorizeParams {
  @Optional()
  @IsString()
  _csrf?: string;

  @Optional()
  @IsString()
  decision?: string;
}
