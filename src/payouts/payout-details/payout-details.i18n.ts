import type { Lang } from '../../pages/i18n';

/** The payout details form's words (payout-details.form.tsx), in the frame's two languages. */
const EN = {
  title: 'Payout details',
  current: 'We pay to:',
  none: 'You have not entered payout details yet.',
  methods: { bank_account: 'Bank account', paypal: 'PayPal' } as Record<string, string>,
  fix: 'Please correct the fields marked below.',
  bankAccount: 'Bank account',
  bankHint: 'An IBAN, or a Russian account number with the bank’s BIK.',
  holder: 'Account holder',
  iban: 'IBAN',
  or: 'or',
  account: 'Account number (20 digits)',
  bik: 'BIK (9 digits)',
  saveBank: 'Save bank account',
  paypal: 'PayPal',
  email: 'PayPal email',
  savePaypal: 'Save PayPal',
  replaces: 'Saving replaces the details entered before.',
  /** A field's error: the check's own sentence (English) after the field's name. */
  error: (_field: string, label: string, message: string) => `${label} ${message}.`,
};
export type PayoutDetailsTexts = typeof EN;

const RU: PayoutDetailsTexts = {
  title: 'Реквизиты для выплат',
  current: 'Выплачиваем на:',
  none: 'Вы ещё не указали реквизиты для выплат.',
  methods: { bank_account: 'Банковский счёт', paypal: 'PayPal' },
  fix: 'Исправьте отмеченные ниже поля.',
  bankAccount: 'Банковский счёт',
  bankHint: 'IBAN или номер российского счёта с БИК банка.',
  holder: 'Получатель',
  iban: 'IBAN',
  or: 'или',
  account: 'Номер счёта (20 цифр)',
  bik: 'БИК (9 цифр)',
  saveBank: 'Сохранить счёт',
  paypal: 'PayPal',
  email: 'Email в PayPal',
  savePaypal: 'Сохранить PayPal',
  replaces: 'Сохранение заменяет указанные ранее реквизиты.',
  error: (field, label) => `${label}: ${RU_ERRORS[field] ?? 'проверьте значение'}.`,
};

/** What each field's error says in Russian, by field (the checks' sentences are English). */
const RU_ERRORS: Record<string, string> = {
  method: 'выберите способ выплаты',
  holder: 'укажите получателя, до 200 символов',
  iban: 'не сходятся контрольные цифры, длина или формат страны',
  account: 'нужно 20 цифр, и контрольный ключ счёта должен соответствовать БИК',
  bik: 'нужно 9 цифр российского БИК',
  email: 'укажите адрес электронной почты',
};

export const PAYOUT_DETAILS_TEXTS: Record<Lang, PayoutDetailsTexts> = { en: EN, ru: RU };
