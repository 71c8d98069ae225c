import type { Lang } from '../../pages/i18n';

/** The partner mail page's words (ru/en); console.i18n.ts has the rest. */
const EN = {
  title: 'Partner mail',
  intro:
    'What partners are mailed, in your language and branding (docs/notifications.md). Partners choose per type: at once, in the daily digest, or not at all.',
  previews: 'Preview of each mail',
  subject: 'Subject',
  log: 'Delivery log',
  empty: 'No mail yet.',
  when: 'Created',
  type: 'Type',
  to: 'To',
  status: 'Status',
  attempts: 'Attempts',
  error: 'Last error',
  statuses: {
    queued: 'queued',
    sent: 'sent',
    failed: 'failed',
    suppressed: 'suppressed',
  } as Record<string, string>,
};

const RU: typeof EN = {
  title: 'Письма партнёрам',
  intro:
    'Что получают партнёры — на вашем языке и в вашем оформлении (docs/notifications.md). Партнёр выбирает для каждого типа: сразу, в ежедневной сводке или никогда.',
  previews: 'Как выглядит каждое письмо',
  subject: 'Тема',
  log: 'Журнал отправки',
  empty: 'Писем пока не было.',
  when: 'Создано',
  type: 'Тип',
  to: 'Кому',
  status: 'Статус',
  attempts: 'Попытки',
  error: 'Последняя ошибка',
  statuses: {
    queued: 'в очереди',
    sent: 'отправлено',
    failed: 'не доставлено',
    suppressed: 'адрес заблокирован',
  },
};

export const MAIL_PAGE_TEXTS: Record<Lang, typeof EN> = { en: EN, ru: RU };
