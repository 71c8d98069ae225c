import type { Lang } from '../../pages/i18n';

/** The words of the bonus queue (console.i18n.ts and records.i18n.ts have the rest). */
const EN = {
  totals: 'Totals',
  count: 'Count',
  reviewQueue: 'Review queue',
  reviewQueueHint: 'pending bonuses a risk signal holds back; the grace period never approves them',
  review: 'Review',
  any: 'any',
  reviewStatus: { flagged: 'flagged', cleared: 'cleared' } as Record<string, string>,
  user: 'User',
  csvHint: 'the bonuses these filters keep',
  bonus: 'Bonus',
  select: (id: string) => `Select ${id}`,
  approve: 'Approve',
  reject: 'Reject',
  reason: 'Reason',
  reasonFor: (id: string) => `Reason for ${id}`,
  bulkReason: 'Reason for rejection',
  approveSelected: 'Approve selected',
  rejectSelected: 'Reject selected',
  approved: (id: string) => `Bonus ${id} approved.`,
  rejected: (id: string) => `Bonus ${id} rejected.`,
  approvedN: (n: string) => `Approved ${n}.`,
  rejectedN: (n: string) => `Rejected ${n}.`,
  stale: (ids: string[]) => `${ids.length} were no longer pending: ${ids.join(', ')}`,
  viewerNote: 'Your role can see bonuses but not approve or reject them.',
  sourceType: {
    lead: 'lead',
    conversion: 'conversion',
    manual: 'manual',
    bounty: 'bounty',
  } as Record<string, string>,
  signals: {} as Record<string, string>,
  errors: {} as Record<string, string>,
};
export type BonusTexts = typeof EN;

const RU: BonusTexts = {
  totals: 'Итоги',
  count: 'Количество',
  reviewQueue: 'Очередь проверки',
  reviewQueueHint:
    'бонусы в ожидании, задержанные сигналом риска; по истечении срока они сами не одобряются',
  review: 'Проверка',
  any: 'любая',
  reviewStatus: { flagged: 'на проверке', cleared: 'проверен' },
  user: 'Партнёр',
  csvHint: 'бонусы, которые оставляют эти фильтры',
  bonus: 'Бонус',
  select: (id) => `Выбрать ${id}`,
  approve: 'Одобрить',
  reject: 'Отклонить',
  reason: 'Причина',
  reasonFor: (id) => `Причина отклонения ${id}`,
  bulkReason: 'Причина отклонения',
  approveSelected: 'Одобрить выбранные',
  rejectSelected: 'Отклонить выбранные',
  approved: (id) => `Бонус ${id} одобрен.`,
  rejected: (id) => `Бонус ${id} отклонён.`,
  approvedN: (n) => `Одобрено: ${n}.`,
  rejectedN: (n) => `Отклонено: ${n}.`,
  stale: (ids) => `Уже не в ожидании (${ids.length}): ${ids.join(', ')}`,
  viewerNote: 'Ваша роль позволяет смотреть бонусы, но не одобрять и не отклонять их.',
  sourceType: { lead: 'лид', conversion: 'конверсия', manual: 'вручную', bounty: 'цель' },
  /** docs/fraud.md's signals by name; the stored sentence (English) follows for the record. */
  signals: {
    duplicate_customer: 'клиент уже лид другого партнёра',
    ip_burst: 'много лидов с одного IP за час',
    disposable_email: 'одноразовый адрес почты',
    fast_conversion: 'заказ слишком быстро после клика',
    amount_outlier: 'сумма намного выше обычной',
    self_referral: 'клиент из собственной сети партнёра',
  },
  /** The English messages of the bonus actions' refusals, as a Russian page says them. */
  errors: {
    'A rejection needs a reason.': 'Для отклонения нужна причина.',
    'Select at least one bonus.': 'Выберите хотя бы один бонус.',
    'Select at most 100 bonuses.': 'Выберите не больше 100 бонусов.',
  },
};

export const BONUS_TEXTS: Record<Lang, BonusTexts> = { en: EN, ru: RU };
