import { isEmail } from 'class-validator';
import { type FieldError, ValidationFailedError } from '../../common/errors/domain-error';
import { textProblem } from '../../common/http/hostile-input';
import { ibanProblem, normalizeIban, russianAccountProblems } from './bank-checks';

export const PAYOUT_METHODS = ['bank_account', 'paypal'] as const;
export type PayoutMethod = (typeof PAYOUT_METHODS)[number];

/**
 * What a partner sends (the portal's form fields, or any caller of PayoutDetailsService.save):
 * `method`, then `holder` and `iban`, or `holder`, `account` and `bik` (bank_account), or `email`
 * (paypal). Empty strings count as absent (a form sends every field it shows); other keys are
 * not read.
 */
export interface PayoutDetailsInput {
  method?: unknown;
  holder?: unknown;
  iban?: unknown;
  account?: unknown;
  bik?: unknown;
  email?: unknown;
}

/** The fields the portal's two forms post (besides `_csrf`), as posted. */
export type PayoutDetailsFormValues = Partial<
  Record<'method' | 'holder' | 'iban' | 'account' | 'bik' | 'email', string>
>;

/** Checked and normalized details: what is sealed, and what the run CSV writes. */
export type PayoutDetails =
  | { method: 'bank_account'; holder: string; iban: string }
  | { method: 'bank_account'; holder: string; account: string; bik: string }
  | { method: 'paypal'; email: string };

export const MAX_HOLDER = 200;
export const MAX_EMAIL = 254;

/** A field's text, trimmed; undefined when absent, empty or not a string. */
function text(value: unknown): string | undefined {
  const trimmed = typeof value === 'string' ? value.trim() : '';
  return trimmed === '' ? undefined : trimmed;
}

/**
 * The details of `input`, checked (docs/partners.md, "Payout details"), or a 400
 * `validation_failed` naming each bad field: an IBAN by its check digits, a Russian account by
 * its key against the BIK, a PayPal email by its form.
 */
export function checkPayoutDetails(input: PayoutDetailsInput): PayoutDetails {
  const errors: FieldError[] = [];
  const field = (name: keyof PayoutDetailsInput, max: number): string | undefined => {
    const raw = input[name];
    if (raw !== undefined && raw !== null && typeof raw !== 'string') {
      errors.push({ field: name, message: 'must be text' });
      return undefined;
    }
    const value = text(raw);
    if (value === undefined) return undefined;
    const problem = textProblem(value);
    if (problem) errors.push({ field: name, message: problem });
    else if (value.length > max)
      errors.push({ field: name, message: `must be at most ${max} characters` });
    return problem ? undefined : value;
  };
  const refuse = (): never => {
    throw new ValidationFailedError(errors, 'The payout details are not valid.');
  };

  const method = text(input.method);
  if (method === 'paypal') {
    const email = field('email', MAX_EMAIL);
    if (email === undefined && !errors.length)
      errors.push({ field: 'email', message: 'is required' });
    else if (email !== undefined && !isEmail(email))
      errors.push({ field: 'email', message: 'must be an email' });
    if (errors.length) refuse();
    return { method, email: email! };
  }
  if (method !== 'bank_account') {
    errors.push({ field: 'method', message: 'must be bank_account or paypal' });
    return refuse();
  }

  const holder = field('holder', MAX_HOLDER);
  if (holder === undefined && !errors.some((e) => e.field === 'holder'))
    errors.push({ field: 'holder', message: 'is required' });
  else if (holder !== undefined && /[\t\r\n]/.test(holder))
    errors.push({ field: 'holder', message: 'must be one line' });
  const iban = field('iban', 64);
  const account = field('account', 64);
  const bik = field('bik', 64);
  if (iban !== undefined && (account !== undefined || bik !== undefined)) {
    errors.push({ field: 'iban', message: 'give an IBAN, or an account with its BIK, not both' });
    return refuse();
  }
  if (iban !== undefined) {
    const normalized = normalizeIban(iban);
    const problem = ibanProblem(normalized);
    if (problem) errors.push({ field: 'iban', message: problem });
    if (errors.length) refuse();
    return { method, holder: holder!, iban: normalized };
  }
  if (account === undefined && bik === undefined) {
    if (!errors.some((e) => ['iban', 'account', 'bik'].includes(e.field)))
      errors.push({ field: 'iban', message: 'is required (or an account with its BIK)' });
    return refuse();
  }
  const digits = (v: string | undefined) => (v ?? '').replace(/[\s-]+/g, '');
  errors.push(...russianAccountProblems(digits(account), digits(bik)));
  if (errors.length) refuse();
  return { method, holder: holder!, account: digits(account), bik: digits(bik) };
}

const BULLETS = '••••';

/**
 * What staff, the Admin API and the partner see of stored details: `•••• 1234` (the last 4 of
 * the IBAN or account), `j•••@example.com` (the email's first character and its domain).
 */
export function maskPayoutDetails(details: PayoutDetails): string {
  if (details.method === 'paypal') {
    const at = details.email.lastIndexOf('@');
    return `${[...details.email.slice(0, at)][0] ?? ''}•••${details.email.slice(at)}`;
  }
  const number = 'iban' in details ? details.iban : details.account;
  return `${BULLETS} ${number.slice(-4)}`;
}
