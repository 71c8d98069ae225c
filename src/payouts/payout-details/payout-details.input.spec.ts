import { ValidationFailedError } from '../../common/errors/domain-error';
import {
  checkPayoutDetails,
  maskPayoutDetails,
  type PayoutDetailsInput,
} from './payout-details.input';

function refusal(input: PayoutDetailsInput) {
  try {
    checkPayoutDetails(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationFailedError);
    const e = error as ValidationFailedError;
    expect(e.status).toBe(400);
    expect(e.code).toBe('validation_failed');
    return e.errors;
  }
  throw new Error('accepted');
}

describe('payout details: checks and the masked form', () => {
  it('takes an IBAN, normalized, and masks it to its last 4', () => {
    const details = checkPayoutDetails({
      method: 'bank_account',
      holder: '  Anna Petrova ',
      iban: 'de89 3704 0044 0532 0130 00',
      account: '',
      bik: '',
      email: '',
    });
    expect(details).toEqual({
      method: 'bank_account',
      holder: 'Anna Petrova',
      iban: 'DE89370400440532013000',
    });
    expect(maskPayoutDetails(details)).toBe('•••• 3000');
  });

  it('takes a Russian account with its BIK', () => {
    const details = checkPayoutDetails({
      method: 'bank_account',
      holder: 'ООО «Ромашка»',
      account: '4060 2810 7000 0000 0025',
      bik: '049805746',
    });
    expect(details).toEqual({
      method: 'bank_account',
      holder: 'ООО «Ромашка»',
      account: '40602810700000000025',
      bik: '049805746',
    });
    expect(maskPayoutDetails(details)).toBe('•••• 0025');
  });

  it('takes a PayPal email and masks all but its first character and domain', () => {
    const details = checkPayoutDetails({ method: 'paypal', email: 'jane.doe@example.com' });
    expect(details).toEqual({ method: 'paypal', email: 'jane.doe@example.com' });
    expect(maskPayoutDetails(details)).toBe('j•••@example.com');
    expect(maskPayoutDetails({ method: 'paypal', email: 'я@пример.рф' })).toBe('я•••@пример.рф');
  });

  it.each<[PayoutDetailsInput, { field: string; message: string }[]]>([
    [{}, [{ field: 'method', message: 'must be bank_account or paypal' }]],
    [{ method: 'cash' }, [{ field: 'method', message: 'must be bank_account or paypal' }]],
    [
      { method: 'bank_account', holder: 'A', iban: 'DE89370400440532013001' },
      [{ field: 'iban', message: 'has wrong check digits' }],
    ],
    [
      { method: 'bank_account', holder: 'A', account: '40602810600000000025', bik: '049805746' },
      [
        {
          field: 'account',
          message: "has a key digit (the 9th) that does not match the bank's BIK",
        },
      ],
    ],
    [
      { method: 'bank_account', holder: 'A', account: '40602810700000000025', bik: '0498' },
      [{ field: 'bik', message: 'must be 9 digits' }],
    ],
    [
      { method: 'bank_account', holder: 'A', account: '40602810700000000025' },
      [{ field: 'bik', message: 'must be 9 digits' }],
    ],
    [
      { method: 'bank_account', iban: 'DE89370400440532013000' },
      [{ field: 'holder', message: 'is required' }],
    ],
    [
      { method: 'bank_account', holder: 'A' },
      [{ field: 'iban', message: 'is required (or an account with its BIK)' }],
    ],
    [
      {
        method: 'bank_account',
        holder: 'A',
        iban: 'DE89370400440532013000',
        account: '40602810700000000025',
        bik: '049805746',
      },
      [{ field: 'iban', message: 'give an IBAN, or an account with its BIK, not both' }],
    ],
    [
      { method: 'bank_account', holder: 'x'.repeat(201), iban: 'DE89370400440532013000' },
      [{ field: 'holder', message: 'must be at most 200 characters' }],
    ],
    [
      { method: 'bank_account', holder: 'A\u001b[31m', iban: 'DE89370400440532013000' },
      [{ field: 'holder', message: 'must not contain control characters' }],
    ],
    [
      { method: 'bank_account', holder: 5, iban: 'DE89370400440532013000' },
      [{ field: 'holder', message: 'must be text' }],
    ],
    [
      { method: 'bank_account', holder: 'Anna\nPetrova', iban: 'DE89370400440532013000' },
      [{ field: 'holder', message: 'must be one line' }],
    ],
    [{ method: 'paypal' }, [{ field: 'email', message: 'is required' }]],
    [
      { method: 'paypal', email: 'not-an-email' },
      [{ field: 'email', message: 'must be an email' }],
    ],
  ])('refuses %j', (input, errors) => {
    expect(refusal(input)).toEqual(errors);
  });
});
