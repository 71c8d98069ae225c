import type { Lang } from '../../pages/i18n';

/** The applications page's words (ru/en); console.i18n.ts has the rest. */
const EN = {
  title: 'Applications',
  intro:
    'People who applied to become partners and confirmed their email. Approving one makes them a partner in the group chosen, under the partner who recruited them.',
  allGroups: 'All groups',
  filter: 'Show',
  empty: 'No applications waiting.',
  applied: 'Applied',
  recruiter: 'Recruited by',
  noRecruiter: 'nobody',
  unnamed: 'a partner without a name',
  group: 'Group',
  answers: 'Answers',
  noAnswers: 'No answers.',
  approveInto: 'Approve into group',
  approve: 'Approve',
  reason: 'Reason for rejecting',
  reject: 'Reject',
  approved: 'The application was approved: the applicant is a partner now.',
  rejected: 'The application was rejected.',
  waiting: (n: number) => `${n} waiting`,
};

const RU: typeof EN = {
  title: 'Заявки',
  intro:
    'Люди, подавшие заявку в партнёры и подтвердившие почту. Одобренная заявка делает человека партнёром выбранной группы под пригласившим его партнёром.',
  allGroups: 'Все группы',
  filter: 'Показать',
  empty: 'Заявок нет.',
  applied: 'Подана',
  recruiter: 'Пригласил(а)',
  noRecruiter: 'никто',
  unnamed: 'партнёр без имени',
  group: 'Группа',
  answers: 'Ответы',
  noAnswers: 'Ответов нет.',
  approveInto: 'Одобрить в группу',
  approve: 'Одобрить',
  reason: 'Причина отказа',
  reject: 'Отклонить',
  approved: 'Заявка одобрена: человек стал партнёром.',
  rejected: 'Заявка отклонена.',
  waiting: (n) => `Ждут решения: ${n}`,
};

export type ApplicationsTexts = typeof EN;

export const APPLICATIONS_TEXTS: Record<Lang, ApplicationsTexts> = { en: EN, ru: RU };
