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

/**
 * A labelled one-line text field of a plain form, with its error (already worded) beside it:
 * `aria-invalid` and `aria-describedby` point at the error, so a screen reader says both.
 */
export function TextField(props: {
  id: string;
  name: string;
  label: string;
  value?: string;
  error?: string;
  type?: 'text' | 'email';
  autocomplete: string;
  inputmode?: 'numeric';
  maxLength?: number;
}) {
  const errorId = `${props.id}-error`;
  return (
    <p>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        name={props.name}
        type={props.type ?? 'text'}
        value={props.value ?? ''}
        autocomplete={props.autocomplete}
        inputMode={props.inputmode}
        spellcheck={false}
        maxLength={props.maxLength}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={props.error ? errorId : undefined}
      />
      {props.error && (
        <span id={errorId} class="error">
          {props.error}
        </span>
      )}
    </p>
  );
}
