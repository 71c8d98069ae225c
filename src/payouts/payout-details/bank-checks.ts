import { electronicFormatIBAN, validateIBAN, ValidationErrorsIBAN } from 'ibantools';

/**
 * The checks of a partner's bank details (docs/partners.md, "Payout details"): an IBAN by its
 * ISO 13616 check digits (mod 97) and its country's length and format (ibantools), and a Russian
 * settlement account by its key digit against the bank's BIK (the Bank of Russia's algorithm).
 * Each answers the problem as a sentence for the field, or null when the value is good.
 */

/** `de89 3704 0044 0532 0130 00` → `DE89370400440532013000`: spaces go, letters are upper-cased. */
export function normalizeIban(raw: string): string {
  return raw.replace(/\s+/g, '').toUpperCase();
}

const IBAN_SHAPE = /^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/;

const IBAN_PROBLEMS: Partial<Record<ValidationErrorsIBAN, string>> = {
  [ValidationErrorsIBAN.NoIBANCountry]: 'has a country code that has no IBAN',
  [ValidationErrorsIBAN.WrongBBANLength]: 'has the wrong length for its country',
  [ValidationErrorsIBAN.WrongBBANFormat]: "does not match its country's account format",
  [ValidationErrorsIBAN.ChecksumNotNumber]: 'has check digits that are not digits',
  [ValidationErrorsIBAN.WrongIBANChecksum]: 'has wrong check digits',
  [ValidationErrorsIBAN.WrongAccountBankBranchChecksum]: 'has a wrong national check digit',
};

/** The problem with an IBAN (normalized by normalizeIban), or null. */
export function ibanProblem(iban: string): string | null {
  if (!IBAN_SHAPE.test(iban) || electronicFormatIBAN(iban) !== iban)
    return 'must be an IBAN: a country code, two check digits and the account (letters and digits)';
  const { valid, errorCodes } = validateIBAN(iban);
  if (valid) return null;
  return IBAN_PROBLEMS[errorCodes[0]] ?? 'is not a valid IBAN';
}

/** The weights of the Bank of Russia's key (Положение ЦБ РФ № 515, 08.09.1997): 7, 1, 3, … */
const WEIGHTS = [7, 1, 3];

/**
 * The 3 digits the key is computed over before the account: the bank's number (BIK digits 7-9),
 * or, for an account at a cash settlement centre of the Bank of Russia (BIK ending in `000`),
 * `0` and the centre's number (BIK digits 5-6).
 */
function bankDigits(bik: string): string {
  return bik.endsWith('000') ? `0${bik.slice(4, 6)}` : bik.slice(6, 9);
}

/** Σ digit × weight (7, 1, 3 repeated) of the 23 digits; a good account makes it ≡ 0 (mod 10). */
function weightedSum(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) sum += Number(digits[i]) * WEIGHTS[i % 3];
  return sum;
}

/**
 * The key digit (the 9th of the 20) the account must have at this BIK: the last digit of the
 * weighted sum with the key taken as 0, times 3 (the key's own weight is 3, and 3 × 7 ≡ 1).
 */
export function accountKey(account: string, bik: string): number {
  const zeroed = `${account.slice(0, 8)}0${account.slice(9)}`;
  return ((weightedSum(bankDigits(bik) + zeroed) % 10) * 3) % 10;
}

/** Whether the 20-digit account's key digit is right for the 9-digit BIK. */
export function accountKeyValid(account: string, bik: string): boolean {
  return weightedSum(bankDigits(bik) + account) % 10 === 0;
}

export const BIK_PATTERN = /^[0-9]{9}$/;
export const ACCOUNT_PATTERN = /^[0-9]{20}$/;

/** The problems of a Russian account and BIK, by field (empty when both are good). */
export function russianAccountProblems(
  account: string,
  bik: string,
): { field: 'account' | 'bik'; message: string }[] {
  const problems: { field: 'account' | 'bik'; message: string }[] = [];
  if (!ACCOUNT_PATTERN.test(account))
    problems.push({ field: 'account', message: 'must be 20 digits' });
  if (!BIK_PATTERN.test(bik)) problems.push({ field: 'bik', message: 'must be 9 digits' });
  else if (!bik.startsWith('04'))
    problems.push({ field: 'bik', message: 'must be a Russian BIK (starting with 04)' });
  if (!problems.length && !accountKeyValid(account, bik))
    problems.push({
      field: 'account',
      message: "has a key digit (the 9th) that does not match the bank's BIK",
    });
  return problems;
}
