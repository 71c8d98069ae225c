import type { FieldError } from '../../common/errors/domain-error';
import { CsrfField } from '../../common/pages/components';
import { TextField } from '../../pages/forms';
import type { Lang } from '../../pages/i18n';
import { MAX_EMAIL, MAX_HOLDER, type PayoutDetailsFormValues } from './payout-details.input';
import { PAYOUT_DETAILS_TEXTS, type PayoutDetailsTexts } from './payout-details.i18n';

export interface PayoutDetailsFormProps {
  /** Where both forms post (the portal's Payouts page). */
  action: string;
  csrf: string;
  lang: Lang;
  /** The partner's stored details, masked (PayoutDetailsService.getMasked); null: none yet. */
  current: { method: string; masked: string } | null;
  /**
   * After a refused post: what was posted (shown again in the form of its `method`, never the
   * stored details, which are not read back in full) and the `errors` of the 400
   * `validation_failed` that save() threw (ValidationFailedError.errors).
   */
  posted?: { values: PayoutDetailsFormValues; errors: readonly FieldError[] };
  /** Shown after a successful save (e.g. "Saved"). */
  notice?: string;
}

/**
 * The partner's payout details as a page section without JavaScript: what is stored (masked),
 * and two plain POST forms, one per method (a hidden `method` field), each with its CSRF field,
 * its labels and its field errors (`aria-invalid`, `aria-describedby`). Built on the frame's form
 * parts (`TextField` of src/pages/forms.tsx, `CsrfField`); preact escapes every value.
 */
export function PayoutDetailsForm(props: PayoutDetailsFormProps) {
  const t = PAYOUT_DETAILS_TEXTS[props.lang];
  const posted = props.posted;
  const errors = new Map((posted?.errors ?? []).map((e) => [e.field, e.message]));
  const valuesOf = (method: string) =>
    posted?.values.method === method ? posted.values : ({} as PayoutDetailsFormValues);
  const errorsOf = (method: string) =>
    posted?.values.method === method || (method === 'bank_account' && errors.has('method'))
      ? errors
      : new Map<string, string>();
  const bank = valuesOf('bank_account');
  const paypal = valuesOf('paypal');
  return (
    <section aria-labelledby="payout-details-h" data-section="payout-details">
      <h2 id="payout-details-h">{t.title}</h2>
      {props.notice && (
        <p class="notice" role="status">
          {props.notice}
        </p>
      )}
      <p data-payout-details={props.current?.method ?? 'none'}>
        {props.current ? (
          <>
            {t.current} {t.methods[props.current.method] ?? props.current.method}{' '}
            <span data-masked>{props.current.masked}</span>
          </>
        ) : (
          t.none
        )}
      </p>
      {errors.size > 0 && (
        <p class="error" role="alert">
          {t.fix}
        </p>
      )}
      <p class="muted">{t.replaces}</p>
      <form method="post" action={props.action} data-method="bank_account">
        <CsrfField value={props.csrf} />
        <input type="hidden" name="method" value="bank_account" />
        <fieldset>
          <legend>{t.bankAccount}</legend>
          <p class="muted">{t.bankHint}</p>
          <Field
            t={t}
            id="pd-holder"
            name="holder"
            label={t.holder}
            values={bank}
            errors={errorsOf('bank_account')}
            autocomplete="name"
          />
          <Field
            t={t}
            id="pd-iban"
            name="iban"
            label={t.iban}
            values={bank}
            errors={errorsOf('bank_account')}
            autocomplete="off"
          />
          <p>{t.or}</p>
          <Field
            t={t}
            id="pd-account"
            name="account"
            label={t.account}
            values={bank}
            errors={errorsOf('bank_account')}
            autocomplete="off"
            inputmode="numeric"
          />
          <Field
            t={t}
            id="pd-bik"
            name="bik"
            label={t.bik}
            values={bank}
            errors={errorsOf('bank_account')}
            autocomplete="off"
            inputmode="numeric"
          />
          {errorsOf('bank_account').has('method') && (
            <p class="error">{t.error('method', '', errors.get('method')!)}</p>
          )}
        </fieldset>
        <button type="submit" data-action="save-payout-details">
          {t.saveBank}
        </button>
      </form>
      <form method="post" action={props.action} data-method="paypal">
        <CsrfField value={props.csrf} />
        <input type="hidden" name="method" value="paypal" />
        <fieldset>
          <legend>{t.paypal}</legend>
          <Field
            t={t}
            id="pd-email"
            name="email"
            label={t.email}
            values={paypal}
            errors={errorsOf('paypal')}
            type="email"
            autocomplete="email"
          />
        </fieldset>
        <button type="submit" data-action="save-payout-details">
          {t.savePaypal}
        </button>
      </form>
    </section>
  );
}

/** One field of the bank or PayPal form: its posted value and its error, worded for `lang`. */
function Field(props: {
  t: PayoutDetailsTexts;
  id: string;
  name: keyof PayoutDetailsFormValues;
  label: string;
  values: PayoutDetailsFormValues;
  errors: ReadonlyMap<string, string>;
  type?: 'text' | 'email';
  autocomplete: string;
  inputmode?: 'numeric';
}) {
  const error = props.errors.get(props.name);
  return (
    <TextField
      id={props.id}
      name={props.name}
      label={props.label}
      value={props.values[props.name]}
      error={error && props.t.error(props.name, props.label, error)}
      type={props.type}
      autocomplete={props.autocomplete}
      inputmode={props.inputmode}
      maxLength={props.name === 'holder' ? MAX_HOLDER : MAX_EMAIL}
    />
  );
}
