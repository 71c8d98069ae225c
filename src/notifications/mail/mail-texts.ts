import type { LogType } from './mail-sources';

/** What a mail's words need; every value is the partner's or the tenant's, never trusted. */
export interface MailWords {
  /** The partner's name (or the applicant's). */
  name: string;
  /** The amount, formatted in the tenant's locale. */
  amount: string;
  lead: string;
  member: string;
  bounty: string;
  reference: string;
  reason: string;
  program: string;
}

interface TypeTexts {
  subject: (w: MailWords) => string;
  intro: (w: MailWords) => string;
  /** One line of a digest. */
  line: (w: MailWords) => string;
}

type Texts = Record<Exclude<LogType, 'digest'>, TypeTexts> & {
  digest: { subject: (w: MailWords) => string; intro: (w: MailWords) => string };
  hello: (name: string) => string;
  unsubscribe: string;
  unsubscribeDigest: string;
  footer: (program: string) => string;
};

const EN: Texts = {
  'bonus.pending': {
    subject: (w) => `${w.program}: a new commission of ${w.amount}`,
    intro: (w) =>
      `You earned ${w.amount}${w.lead ? ` for ${w.lead}` : ''}. It is pending until approved.`,
    line: (w) => `New commission: ${w.amount}${w.lead ? ` (${w.lead})` : ''}`,
  },
  'bonus.approved': {
    subject: (w) => `${w.program}: your commission of ${w.amount} is approved`,
    intro: (w) => `Your commission of ${w.amount} was approved and will be paid out.`,
    line: (w) => `Approved: ${w.amount}`,
  },
  'payout.paid': {
    subject: (w) => `${w.program}: we paid you ${w.amount}`,
    intro: (w) => `We paid you ${w.amount}${w.reference ? ` (reference ${w.reference})` : ''}.`,
    line: (w) => `Paid: ${w.amount}`,
  },
  'partner.approved': {
    subject: (w) => `${w.program}: welcome aboard`,
    intro: () => `Your application was approved: you are a partner now.`,
    line: () => `Your application was approved`,
  },
  'partner.rejected': {
    subject: (w) => `${w.program}: your application`,
    intro: (w) =>
      `We are sorry: your application was not approved.${w.reason ? ` Reason: ${w.reason}` : ''}`,
    line: () => `Your application was not approved`,
  },
  'downline.joined': {
    subject: (w) => `${w.program}: ${w.member || 'a new partner'} joined your team`,
    intro: (w) => `${w.member || 'A new partner'} joined your team.`,
    line: (w) => `Joined your team: ${w.member || '—'}`,
  },
  'bounty.reached': {
    subject: (w) => `${w.program}: you reached ${w.bounty || 'a bounty'}`,
    intro: (w) => `You reached ${w.bounty || 'a bounty'}${w.amount ? `: ${w.amount}` : ''}.`,
    line: (w) => `Bounty reached: ${w.bounty || '—'}`,
  },
  digest: {
    subject: (w) => `${w.program}: your daily summary`,
    intro: () => `Here is what happened since the last summary.`,
  },
  hello: (name) => (name ? `Hello, ${name}!` : 'Hello!'),
  unsubscribe: 'Unsubscribe from these mails',
  unsubscribeDigest: 'Unsubscribe from this summary',
  footer: (program) => `You get this mail as a partner of ${program}.`,
};

const RU: Texts = {
  'bonus.pending': {
    subject: (w) => `${w.program}: новое вознаграждение ${w.amount}`,
    intro: (w) =>
      `Вам начислено ${w.amount}${w.lead ? ` за ${w.lead}` : ''}. Оно ждёт подтверждения.`,
    line: (w) => `Новое вознаграждение: ${w.amount}${w.lead ? ` (${w.lead})` : ''}`,
  },
  'bonus.approved': {
    subject: (w) => `${w.program}: вознаграждение ${w.amount} подтверждено`,
    intro: (w) => `Ваше вознаграждение ${w.amount} подтверждено и будет выплачено.`,
    line: (w) => `Подтверждено: ${w.amount}`,
  },
  'payout.paid': {
    subject: (w) => `${w.program}: мы выплатили вам ${w.amount}`,
    intro: (w) => `Мы выплатили вам ${w.amount}${w.reference ? ` (номер ${w.reference})` : ''}.`,
    line: (w) => `Выплачено: ${w.amount}`,
  },
  'partner.approved': {
    subject: (w) => `${w.program}: добро пожаловать`,
    intro: () => `Ваша заявка одобрена: теперь вы партнёр.`,
    line: () => `Ваша заявка одобрена`,
  },
  'partner.rejected': {
    subject: (w) => `${w.program}: ваша заявка`,
    intro: (w) => `К сожалению, ваша заявка не одобрена.${w.reason ? ` Причина: ${w.reason}` : ''}`,
    line: () => `Ваша заявка не одобрена`,
  },
  'downline.joined': {
    subject: (w) => `${w.program}: ${w.member || 'новый партнёр'} в вашей команде`,
    intro: (w) => `${w.member || 'Новый партнёр'} присоединился к вашей команде.`,
    line: (w) => `Новый в команде: ${w.member || '—'}`,
  },
  'bounty.reached': {
    subject: (w) => `${w.program}: цель «${w.bounty || 'бонус'}» достигнута`,
    intro: (w) => `Вы достигли цели «${w.bounty || 'бонус'}»${w.amount ? `: ${w.amount}` : ''}.`,
    line: (w) => `Цель достигнута: ${w.bounty || '—'}`,
  },
  digest: {
    subject: (w) => `${w.program}: сводка за день`,
    intro: () => `Вот что произошло с прошлой сводки.`,
  },
  hello: (name) => (name ? `Здравствуйте, ${name}!` : 'Здравствуйте!'),
  unsubscribe: 'Отписаться от этих писем',
  unsubscribeDigest: 'Отписаться от этой сводки',
  footer: (program) => `Вы получили это письмо как партнёр ${program}.`,
};

export const MAIL_TEXTS = { en: EN, ru: RU };
export type MailTexts = Texts;
