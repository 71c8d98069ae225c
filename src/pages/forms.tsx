import { CsrfField } from '../common/pages/components';

/** A one-button POST form with the CSRF field (no JavaScript needed): sign-out, revoke, replay, … */
export function PostButton(props: {
  action: string;
  csrf: string;
  label: string;
  disabled?: boolean;
}) {
  return (
    <form method="post" action={props.action}>
      <CsrfField value={props.csrf} />
      <button type="submit" disabled={props.disabled}>
        {props.label}
      </button>
    </form>
  );
}
