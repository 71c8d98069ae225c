import type { Lang } from '../../pages/i18n';
import type { EmbedAuth } from '../../tenants/tenant.entity';

/** The words of the integration page and a webhook event's page (console.i18n.ts has the rest). */
const EN = {
  origins: 'Origins and link domains',
  allowedOrigins: 'Allowed origins (one per line)',
  linkDomains: 'Link domains (one per line)',
  embedAuth: 'Who sees a partner’s widgets',
  embedAuthModes: {
    origin: 'Any visitor of an allowed origin',
    token: 'Only the partner, signed in',
  } as Record<EmbedAuth, string>,
  embedAuthHint:
    'With “only the partner”, widget.js asks the partner to sign in (a popup with a mailed code) ' +
    'before it shows their cabinet, money or referrals, and a page that knows a partner’s id ' +
    'learns nothing without their sign-in.',
  save: 'Save',
  tenantKeys: 'Tenant keys',
  name: 'Name',
  key: 'Key',
  actions: 'Actions',
  revoked: (day: string) => `revoked ${day}`,
  revoke: 'Revoke',
  newKeyName: 'New key name',
  createKey: 'Create key',
  webhook: 'Webhook',
  receiverUrl: 'Receiver URL (https)',
  events: 'Events',
  enabled: 'Enabled',
  saveWebhook: 'Save webhook',
  rotateSecret: 'Rotate secret',
  sendTest: 'Send test event',
  recentDeliveries: 'Recent deliveries',
  event: 'Event',
  type: 'Type',
  attemptsCount: 'Attempts',
  lastAnswer: 'Last answer',
  replay: 'Replay',
  shownOnce: '(shown once; store it now):',
  copy: 'Copy',
  copied: 'Copied',
  secretLabel: {
    key: (name: string) => `Tenant key ${name}`,
    secret: () => 'Webhook signing secret',
    rotated: () => 'New webhook signing secret',
  },
  deliveryStatus: {} as Record<string, string>,
  // A webhook event's page.
  eventTitle: (id: string) => `Event ${id}`,
  eventBody: 'The event as delivered',
  attempts: 'Attempts',
  at: 'At',
  duration: 'Duration',
  error: 'Error',
  answer: 'Answer',
  ms: 'ms',
  replayMark: ' (replay)',
  attemptState: { in_flight: 'in flight', interrupted: 'interrupted' } as Record<string, string>,
  /** The notices the controllers say in English, as this page says them. */
  notices: {} as Record<string, string>,
  testDelivered: (id: string, code: string) => `Test event ${id} delivered (HTTP ${code}).`,
  testFailed: (id: string, why: string) => `Test event ${id} was not delivered (${why}).`,
  noAnswer: 'no answer',
};
export type IntegrationTexts = typeof EN;

const RU: IntegrationTexts = {
  origins: 'Источники и домены ссылок',
  allowedOrigins: 'Разрешённые источники (по одному в строке)',
  linkDomains: 'Домены ссылок (по одному в строке)',
  embedAuth: 'Кто видит виджеты партнёра',
  embedAuthModes: {
    origin: 'Любой посетитель разрешённого источника',
    token: 'Только сам партнёр после входа',
  },
  embedAuthHint:
    'В режиме «только сам партнёр» widget.js сначала просит партнёра войти (окно с кодом из ' +
    'письма) и лишь потом показывает его кабинет, деньги и рефералов: страница, которая знает ' +
    'идентификатор партнёра, без его входа ничего не узнает.',
  save: 'Сохранить',
  tenantKeys: 'Ключи организации',
  name: 'Название',
  key: 'Ключ',
  actions: 'Действия',
  revoked: (day) => `отозван ${day}`,
  revoke: 'Отозвать',
  newKeyName: 'Название нового ключа',
  createKey: 'Создать ключ',
  webhook: 'Вебхук',
  receiverUrl: 'Адрес получателя (https)',
  events: 'События',
  enabled: 'Включён',
  saveWebhook: 'Сохранить вебхук',
  rotateSecret: 'Сменить секрет',
  sendTest: 'Отправить тестовое событие',
  recentDeliveries: 'Последние доставки',
  event: 'Событие',
  type: 'Тип',
  attemptsCount: 'Попытки',
  lastAnswer: 'Последний ответ',
  replay: 'Отправить снова',
  shownOnce: '(показывается один раз; сохраните его сейчас):',
  copy: 'Копировать',
  copied: 'Скопировано',
  secretLabel: {
    key: (name) => `Ключ организации ${name}`,
    secret: () => 'Секрет подписи вебхука',
    rotated: () => 'Новый секрет подписи вебхука',
  },
  deliveryStatus: { pending: 'в ожидании', delivered: 'доставлено', dead: 'не доставлено' },
  eventTitle: (id) => `Событие ${id}`,
  eventBody: 'Событие в том виде, в каком оно отправлено',
  attempts: 'Попытки',
  at: 'Время',
  duration: 'Длительность',
  error: 'Ошибка',
  answer: 'Ответ',
  ms: 'мс',
  replayMark: ' (повтор)',
  attemptState: { in_flight: 'выполняется', interrupted: 'прервана' },
  notices: {
    'Settings saved.': 'Настройки сохранены.',
    'Key created.': 'Ключ создан.',
    'Key revoked.': 'Ключ отозван.',
    'Webhook saved.': 'Вебхук сохранён.',
    'Secret rotated; the previous one keeps signing for 24 hours.':
      'Секрет сменён; прежний продолжает подписывать события ещё 24 часа.',
    'Replay queued: one fresh attempt.': 'Повтор поставлен в очередь: одна новая попытка.',
  },
  testDelivered: (id, code) => `Тестовое событие ${id} доставлено (HTTP ${code}).`,
  testFailed: (id, why) => `Тестовое событие ${id} не доставлено (${why}).`,
  noAnswer: 'нет ответа',
};

export const INTEGRATION_TEXTS: Record<Lang, IntegrationTexts> = { en: EN, ru: RU };

/** A notice or error of the integration area (English from the controllers) in the page's words. */
export function sayOutcome(x: IntegrationTexts, message: string | undefined): string | undefined {
  if (!message) return message;
  if (x.notices[message]) return x.notices[message];
  const delivered = /^Test event (\S+) delivered \(HTTP (\d+)\)\.$/.exec(message);
  if (delivered) return x.testDelivered(delivered[1], delivered[2]);
  const failed = /^Test event (\S+) was not delivered \((.+)\)\.$/.exec(message);
  if (failed) return x.testFailed(failed[1], failed[2] === 'no answer' ? x.noAnswer : failed[2]);
  return message;
}
