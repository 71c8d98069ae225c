import type { Lang } from '../../pages/i18n';

/** The words of the console's privacy actions (docs/privacy.md), English and Russian. */
const EN = {
  heading: 'Personal data',
  download: 'Download personal data (JSON)',
  erase: 'Erase personal data',
  eraseExplained:
    "Removes the partner's name, email, IPs, payout details, sign-ins and every copy of them " +
    '(events, audit, answers). The partner stays as a deactivated record: their network, ' +
    'bonuses and payouts are kept, their links stop. This cannot be undone.',
  confirmLabel: 'Type ERASE to confirm',
  confirmErase: 'Erase for good',
  confirmWrong: 'Type ERASE to confirm the erasure.',
  erased: 'Personal data erased',
  erasedBadge: 'erased',
  erasedSince: (at: string) => `Personal data erased on ${at} UTC.`,
  customerHeading: 'Erase a customer',
  customerExplained:
    "Removes the contact and client data of every lead of this customer (and their conversions'), " +
    'including inside stored events. Give an email, a phone or an external id.',
  email: 'Email',
  phone: 'Phone',
  externalId: 'External id',
  customerErased: (leads: number, conversions: number) =>
    `Customer erased: ${leads} leads, ${conversions} conversions.`,
};

const RU: typeof EN = {
  heading: 'Персональные данные',
  download: 'Скачать персональные данные (JSON)',
  erase: 'Удалить персональные данные',
  eraseExplained:
    'Удаляет имя, email, IP-адреса, реквизиты, входы партнёра и все их копии (события, журнал, ' +
    'ответы). Партнёр остаётся отключённой записью: его сеть, бонусы и выплаты сохраняются, ' +
    'ссылки перестают работать. Это нельзя отменить.',
  confirmLabel: 'Введите ERASE для подтверждения',
  confirmErase: 'Удалить навсегда',
  confirmWrong: 'Введите ERASE, чтобы подтвердить удаление.',
  erased: 'Персональные данные удалены',
  erasedBadge: 'данные удалены',
  erasedSince: (at: string) => `Персональные данные удалены ${at} UTC.`,
  customerHeading: 'Удалить данные клиента',
  customerExplained:
    'Удаляет контакт и данные клиента во всех его лидах (и их конверсиях), в том числе в ' +
    'сохранённых событиях. Укажите email, телефон или внешний id.',
  email: 'Email',
  phone: 'Телефон',
  externalId: 'Внешний id',
  customerErased: (leads: number, conversions: number) =>
    `Данные клиента удалены: лидов ${leads}, конверсий ${conversions}.`,
};

export const PRIVACY_TEXTS: Record<Lang, typeof EN> = { en: EN, ru: RU };
