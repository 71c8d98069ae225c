/** The widgets' texts (Russian and English) and the locale they are shown in. */

import { script } from './env';

/** English: the texts of every language but Russian. */
const en = {
  loading: 'Loading…',
  retry: 'Retry',
  prev: '← Previous',
  next: 'Next →',
  page: 'Page {p} of {n}',
  err: 'Could not load the data.',
  errNet: 'The service is unreachable. Check the connection and try again.',
  errOrigin: 'This widget is not enabled for this site.',
  errUser: 'Partner not found.',
  errTenant: 'Partner program not found.',
  errConfig: 'This widget is not set up correctly.',
  cabinet: 'Partner cabinet',
  leadsN: 'Leads',
  clicks: 'Clicks',
  pending: 'Awaiting approval',
  recentLeads: 'Recent leads',
  recentTx: 'Recent bonuses',
  noLeads: 'No leads yet.',
  noTx: 'No bonuses yet.',
  claim: 'Sign in through “Get my link” to confirm your profile.',
  bonuses: 'Bonuses',
  tx: 'Transactions',
  accounts: 'Accounts in other currencies',
  avail: 'Available',
  inPayout: 'In payout',
  paidOut: 'Paid out',
  nextOn: 'Next payout: {d}',
  nextManual: 'Payouts are sent by the program, no fixed date.',
  toMinimum: '{r} more to reach the minimum payout of {m}.',
  minimumReached: 'Minimum payout of {m} reached: {p} goes out in the next payout.',
  payouts: 'Payouts',
  noPayouts: 'No payouts yet.',
  leads: 'Leads',
  status: 'Status',
  all: 'All',
  s_new: 'New',
  s_processed: 'In progress',
  s_converted: 'Converted',
  s_rejected: 'Rejected',
  tree: 'My network',
  downline: 'In your network: {n}',
  levels: 'Levels shown: {n}.',
  cap: 'There are members deeper than level {n}.',
  deeper: 'Show deeper',
  expandAll: 'Expand all',
  collapseAll: 'Collapse',
  truncated: 'Showing the first 1000 members.',
  noTree: 'Nobody in your network yet.',
  partners: 'My partners',
  noPartners: 'No partners yet.',
  inactive: 'inactive',
  since: 'since {d}',
  r_partner: 'Partner',
  r_ambassador: 'Ambassador',
  r_leader: 'Leader',
  link: 'My link',
  linkHint: 'Sign in to get your short link for invitations.',
  getLink: 'Get my link',
  waiting: 'Finish signing in in the pop-up window…',
  creating: 'Creating the link…',
  copy: 'Copy',
  copied: 'Copied',
  reused: 'This is the link you created before.',
  created: 'Link created.',
  popupBlocked: 'The browser blocked the sign-in window. Allow pop-ups and try again.',
  cancelled: 'Sign-in was cancelled.',
  denied: 'Access was not allowed.',
  expired: 'Your session has expired; sign in again.',
  badTarget: 'A link to this page cannot be made.',
  form: 'Leave a request',
  name: 'Name',
  email: 'Email',
  phone: 'Phone',
  send: 'Send',
  sent: 'Thank you! Your request has been sent.',
  again: 'Send another',
  noRef: 'This form works when you arrive through a partner’s link.',
  badRef: 'The partner’s link is not valid.',
  needName: 'Enter your name.',
  needContact: 'Enter an email or a phone number.',
  limited: 'Too many requests. Try again later.',
  t_lead: 'For a lead',
  t_manual: 'Manual bonus',
  t_referrer: 'Order — your sale',
  t_upline: 'Order — line {n}',
};

export type TextKey = keyof typeof en;

const ru: Record<TextKey, string> = {
  loading: 'Загрузка…',
  retry: 'Повторить',
  prev: '← Назад',
  next: 'Вперёд →',
  page: 'Страница {p} из {n}',
  err: 'Не удалось загрузить данные.',
  errNet: 'Сервис недоступен. Проверьте соединение и попробуйте ещё раз.',
  errOrigin: 'Виджет не подключён для этого сайта.',
  errUser: 'Участник программы не найден.',
  errTenant: 'Партнёрская программа не найдена.',
  errConfig: 'Виджет настроен неверно.',
  cabinet: 'Кабинет партнёра',
  leadsN: 'Лиды',
  clicks: 'Переходы',
  pending: 'Ждут одобрения',
  recentLeads: 'Последние лиды',
  recentTx: 'Последние начисления',
  noLeads: 'Лидов пока нет.',
  noTx: 'Начислений пока нет.',
  claim: 'Войдите через «Получить ссылку», чтобы подтвердить профиль.',
  bonuses: 'Бонусы',
  tx: 'Начисления',
  accounts: 'Счета в других валютах',
  avail: 'Доступно',
  inPayout: 'В выплате',
  paidOut: 'Выплачено',
  nextOn: 'Следующая выплата: {d}',
  nextManual: 'Выплаты проводит программа, без расписания.',
  toMinimum: 'До минимальной выплаты {m} осталось {r}.',
  minimumReached: 'Минимальная выплата {m} набрана: {p} войдут в следующую выплату.',
  payouts: 'Выплаты',
  noPayouts: 'Выплат пока нет.',
  leads: 'Лиды',
  status: 'Статус',
  all: 'Все',
  s_new: 'Новый',
  s_processed: 'В работе',
  s_converted: 'Конвертирован',
  s_rejected: 'Отклонён',
  tree: 'Моя сеть',
  downline: 'Всего в сети: {n}',
  levels: 'Показано уровней: {n}.',
  cap: 'Глубже {n}-го уровня есть ещё участники.',
  deeper: 'Показать глубже',
  expandAll: 'Развернуть всё',
  collapseAll: 'Свернуть',
  truncated: 'Показаны первые 1000 участников.',
  noTree: 'В вашей сети пока никого нет.',
  partners: 'Мои партнёры',
  noPartners: 'Партнёров пока нет.',
  inactive: 'неактивен',
  since: 'с {d}',
  r_partner: 'Партнёр',
  r_ambassador: 'Амбассадор',
  r_leader: 'Лидер',
  link: 'Моя ссылка',
  linkHint: 'Войдите, чтобы получить короткую ссылку для приглашений.',
  getLink: 'Получить ссылку',
  waiting: 'Завершите вход во всплывающем окне…',
  creating: 'Создаём ссылку…',
  copy: 'Копировать',
  copied: 'Скопировано',
  reused: 'Это ваша ссылка, созданная ранее.',
  created: 'Ссылка создана.',
  popupBlocked: 'Браузер заблокировал окно входа. Разрешите всплывающие окна и попробуйте снова.',
  cancelled: 'Вход отменён.',
  denied: 'Доступ не разрешён.',
  expired: 'Сессия истекла, войдите снова.',
  badTarget: 'На эту страницу нельзя сделать ссылку.',
  form: 'Оставить заявку',
  name: 'Имя',
  email: 'Email',
  phone: 'Телефон',
  send: 'Отправить',
  sent: 'Спасибо! Заявка отправлена.',
  again: 'Отправить ещё одну',
  noRef: 'Форма работает, когда вы пришли по ссылке партнёра.',
  badRef: 'Ссылка партнёра недействительна.',
  needName: 'Укажите имя.',
  needContact: 'Укажите email или телефон.',
  limited: 'Слишком много заявок. Попробуйте позже.',
  t_lead: 'За лид',
  t_manual: 'Ручное начисление',
  t_referrer: 'Заказ — личная продажа',
  t_upline: 'Заказ — {n}-я линия',
};

/** Texts exist in Russian (for `ru` and its regional forms) and English (everything else). */
export const texts = (locale: string): Record<TextKey, string> =>
  /^ru(-|$)/.test(locale) ? ru : en;

export type Vars = Record<string, string | number>;

/** `{name}` placeholders filled from `vars` (empty when missing). */
export const fill = (s: string, vars?: Vars): string =>
  s.replace(/\{(\w+)\}/g, (_, k: string) => (vars && k in vars ? String(vars[k]) : ''));

/** The canonical form of a BCP 47 tag this browser's Intl supports, else null (as the API). */
export function canonical(tag: string | null | undefined): string | null {
  if (!tag || tag.length > 64) return null;
  try {
    const [c] = Intl.getCanonicalLocales(tag);
    return c && Intl.NumberFormat.supportedLocalesOf(c).length === 1 ? c : null;
  } catch {
    return null;
  }
}

/** The locale the page asks for: `data-locale` of the element or the script, else `lang`. */
export function askedLocale(el: Element): string | null {
  const near = el.closest('[lang]');
  return (
    canonical(el.getAttribute('data-locale')) ||
    canonical(script?.getAttribute('data-locale')) ||
    canonical(near && near.getAttribute('lang')) ||
    canonical(document.documentElement.lang)
  );
}
