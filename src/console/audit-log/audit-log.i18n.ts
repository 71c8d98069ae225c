import type { Lang } from '../../pages/i18n';

/** The words of the audit log (console.i18n.ts and records.i18n.ts have the rest). */
const EN = {
  action: 'Action',
  at: 'At',
  actor: 'Actor',
  target: 'Target',
  details: 'Details',
  entries: 'Audit entries',
  actorType: {} as Record<string, string>,
};
export type AuditLogTexts = typeof EN;

const RU: AuditLogTexts = {
  action: 'Действие',
  at: 'Время',
  actor: 'Кто',
  target: 'Объект',
  details: 'Подробности',
  entries: 'Записи журнала',
  actorType: { staff: 'сотрудник', platform: 'платформа', system: 'система', partner: 'партнёр' },
};

export const AUDIT_LOG_TEXTS: Record<Lang, AuditLogTexts> = { en: EN, ru: RU };
