import type { Lang } from './i18n';

/** The words of the conversions and leads pages and of the ban form (i18n.ts has the rest). */
const EN = {
  allStatuses: 'Any status',
  allSources: 'Any source',
  partnerId: 'Partner id',
  partnerIdHint: 'mbr_… or usr_…',
  filter: 'Filter',
  clearFilters: 'Clear',
  order: 'Order',
  customer: 'Customer',
  commission: 'Commission',
  reason: 'Reason',
  reverse: 'Reverse',
  reverseReason: (id: string) => `Reason for reversing ${id}`,
  reversed: (id: string) => `Conversion ${id} reversed; its bonuses are written off.`,
  reversedAt: 'Reversed',
  conversionStatus: { registered: 'registered', reversed: 'reversed' } as Record<string, string>,
  leadStatus: {
    new: 'new',
    processed: 'processed',
    converted: 'converted',
    rejected: 'rejected',
  } as Record<string, string>,
  leadSource: {
    federation: 'API',
    lead_form: 'lead form',
    referral_link: 'referral link',
    promo_code: 'promo code',
  } as Record<string, string>,
  phone: 'Phone',
  offer: 'Offer',
  viewerCannotReverse: 'Your role can see conversions but not reverse them.',
  ban: 'Ban',
  banReason: 'Reason for the ban',
  banExplained:
    'Banning deactivates the partner, rejects every pending bonus of theirs and disables their short links (they answer 410). Lifting a ban restores nothing.',
  banned: 'Partner banned: their pending bonuses are rejected and their links disabled.',
  bannedBadge: 'banned',
  bannedSince: (at: string, reason: string) => `Banned ${at}: ${reason}`,
  confirmBan: 'Yes, ban this partner',
};
export type RecordTexts = typeof EN;

const RU: RecordTexts = {
  allStatuses: 'Любой статус',
  allSources: 'Любой источник',
  partnerId: 'Id партнёра',
  partnerIdHint: 'mbr_… или usr_…',
  filter: 'Показать',
  clearFilters: 'Сбросить',
  order: 'Заказ',
  customer: 'Клиент',
  commission: 'Комиссия',
  reason: 'Причина',
  reverse: 'Отменить',
  reverseReason: (id) => `Причина отмены ${id}`,
  reversed: (id) => `Конверсия ${id} отменена, её бонусы списаны.`,
  reversedAt: 'Отменена',
  conversionStatus: { registered: 'зарегистрирована', reversed: 'отменена' },
  leadStatus: {
    new: 'новый',
    processed: 'в работе',
    converted: 'с конверсией',
    rejected: 'отклонён',
  },
  leadSource: {
    federation: 'API',
    lead_form: 'форма',
    referral_link: 'реферальная ссылка',
    promo_code: 'промокод',
  },
  phone: 'Телефон',
  offer: 'Оффер',
  viewerCannotReverse: 'Ваша роль позволяет смотреть конверсии, но не отменять их.',
  ban: 'Заблокировать',
  banReason: 'Причина блокировки',
  banExplained:
    'Блокировка деактивирует партнёра, отклоняет все его бонусы в ожидании и отключает его короткие ссылки (они отвечают 410). Снятие блокировки ничего не возвращает.',
  banned: 'Партнёр заблокирован: его бонусы в ожидании отклонены, ссылки отключены.',
  bannedBadge: 'заблокирован',
  bannedSince: (at, reason) => `Заблокирован ${at}: ${reason}`,
  confirmBan: 'Да, заблокировать партнёра',
};

export const RECORD_TEXTS: Record<Lang, RecordTexts> = { en: EN, ru: RU };
