import { IsString } from 'class-validator';
import { FormText } from '../../common/pages/form';
import { Optional } from '../../common/validation/optional';

/** `POST /org/sign-in`: a staff token or the platform admin token (plus the form's `_csrf`). */
export class SignInForm {
  @FormText()
  @Optional()
  @IsString()
  token?: string;
}
