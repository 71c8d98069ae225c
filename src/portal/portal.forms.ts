import { IsString } from 'class-validator';
import { FormText } from '../common/pages/form';
import { Optional } from '../common/validation/optional';

/** `POST /p/:slug/sign-in`: the email (a malformed one shows the form again). */
export class PortalEmailForm {
  @FormText()
  @Optional()
  @IsString()
  email?: string;
}

/** `POST /p/:slug/sign-in/code`: the email again and the mailed code. */
export class PortalCodeForm extends PortalEmailForm {
  @FormText()
  @Optional()
  @IsString()
  code?: string;
}

/** `POST /p/:slug/links`: the page to link to and an optional note for the landing page. */
export class PortalLinkForm {
  @FormText()
  @Optional()
  @IsString()
  target?: string;

  @FormText()
  @Optional()
  @IsString()
  note?: string;
}

/** A list page's `?page=` (anything but a positive integer is page 1). */
export function pageNumber(value: unknown): number {
  const n = typeof value === 'string' && /^[1-9][0-9]{0,5}$/.test(value) ? Number(value) : 1;
  return n;
}
