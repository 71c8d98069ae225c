import fc from 'fast-check';
import {
  accountKey,
  accountKeyValid,
  ibanProblem,
  normalizeIban,
  russianAccountProblems,
} from './bank-checks';

/** The examples of the IBAN registry (SWIFT, ISO 13616) and of banks' own documentation. */
const VALID_IBANS = [
  'DE89370400440532013000',
  'GB82WEST12345698765432',
  'FR1420041010050500013M02606',
  'NL91ABNA0417164300',
  'CH9300762011623852957',
  'BE68539007547034',
  'ES9121000418450200051332',
  'IT60X0542811101000000123456',
  'AT611904300234573201',
  'PL61109010140000071219812874',
  'NO9386011117947',
  'RU0204452560040702810412345678901',
];

describe('IBAN (ISO 13616 check digits, via ibantools)', () => {
  it.each(VALID_IBANS)('accepts %s', (iban) => {
    expect(ibanProblem(iban)).toBeNull();
  });

  it('normalizes the printed form (groups of four, lower case)', () => {
    expect(normalizeIban(' de89 3704 0044 0532 0130 00 ')).toBe('DE89370400440532013000');
    expect(ibanProblem(normalizeIban('gb82 west 1234 5698 7654 32'))).toBeNull();
  });

  it.each([
    ['DE89370400440532013001', 'has wrong check digits'], // last digit changed
    ['DE98370400440532013000', 'has wrong check digits'], // check digits swapped
    ['DE8937040044053201300', 'has the wrong length for its country'], // one digit short
    ['GB82WEST1234569876543X', "does not match its country's account format"],
    ['XX89370400440532013000', 'has a country code that has no IBAN'],
    ['DE89-3704-0044-0532-0130-00', expect.stringContaining('must be an IBAN')],
    ['40702810412345678901', expect.stringContaining('must be an IBAN')],
    ['', expect.stringContaining('must be an IBAN')],
  ])('refuses %s', (iban, problem) => {
    expect(ibanProblem(iban)).toEqual(problem);
  });

  it('refuses every single-digit corruption of a valid IBAN (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...VALID_IBANS),
        fc.nat(),
        fc.integer({ min: 1, max: 9 }),
        (iban, at, delta) => {
          const digits = [...iban].map((c, i) => (/[0-9]/.test(c) ? i : -1)).filter((i) => i >= 0);
          const i = digits[at % digits.length];
          const corrupted =
            iban.slice(0, i) + String((Number(iban[i]) + delta) % 10) + iban.slice(i + 1);
          expect(corrupted).not.toBe(iban);
          expect(ibanProblem(corrupted)).not.toBeNull();
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('a Russian account and its key against the BIK (Bank of Russia, № 515 of 08.09.1997)', () => {
  // The regulation's own worked examples: a client's account at a credit institution (key 7)…
  it('accepts the regulation’s client account 40602810700000000025 at BIK 049805746', () => {
    expect(accountKey('40602810000000000025', '049805746')).toBe(7);
    expect(accountKeyValid('40602810700000000025', '049805746')).toBe(true);
    expect(russianAccountProblems('40602810700000000025', '049805746')).toEqual([]);
  });

  // …and a correspondent account at a cash settlement centre (BIK ending 000: `0` + digits 5-6).
  it('accepts the regulation’s account 30101810800000000746 at the RKC BIK 049805000', () => {
    expect(accountKey('30101810000000000746', '049805000')).toBe(8);
    expect(accountKeyValid('30101810800000000746', '049805000')).toBe(true);
  });

  it('accepts the IBAN registry’s Russian example (BIK 044525600, account 40702810412345678901)', () => {
    expect(russianAccountProblems('40702810412345678901', '044525600')).toEqual([]);
  });

  it.each([
    ['40602810600000000025', '049805746', 'account'], // another key digit
    ['40602810700000000026', '049805746', 'account'], // last digit changed
    ['40602810700000000025', '049805747', 'account'], // another bank
    ['40602810700000000025', '044525974', 'account'], // another real bank's BIK
  ])('refuses %s at %s', (account, bik, field) => {
    expect(accountKeyValid(account, bik)).toBe(false);
    expect(russianAccountProblems(account, bik)).toEqual([
      { field, message: "has a key digit (the 9th) that does not match the bank's BIK" },
    ]);
  });

  it.each([
    ['4060281070000000002', '049805746', [{ field: 'account', message: 'must be 20 digits' }]],
    ['4060281070000000002X', '049805746', [{ field: 'account', message: 'must be 20 digits' }]],
    ['40602810700000000025', '04980574', [{ field: 'bik', message: 'must be 9 digits' }]],
    [
      '40602810700000000025',
      '149805746',
      [{ field: 'bik', message: 'must be a Russian BIK (starting with 04)' }],
    ],
  ])('refuses the shape of %s / %s', (account, bik, problems) => {
    expect(russianAccountProblems(account, bik)).toEqual(problems);
  });

  it('the key catches every single-digit corruption of the account (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 19 }), fc.integer({ min: 1, max: 9 }), (i, delta) => {
        const good = '40602810700000000025';
        const bad = good.slice(0, i) + String((Number(good[i]) + delta) % 10) + good.slice(i + 1);
        // Weights 7, 1, 3 are prime to 10: a changed digit always changes the sum mod 10.
        expect(accountKeyValid(bad, '049805746')).toBe(false);
      }),
    );
  });
});
