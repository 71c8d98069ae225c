import { FRAME_TEXTS, type FrameTexts, type Lang } from '../pages/i18n';

/** The join and confirmation pages' words (docs/partners.md, "Applications"), beside the frame's. */
const EN = {
  joinTitle: 'Become a partner',
  joinIntro: (tenant: string, group: string) =>
    `Apply to the partner program of ${tenant} (group “${group}”). We mail you a link to confirm the application.`,
  recommendedBy: (name: string) => `Recommended by ${name}.`,
  recommended: 'You came through a partner’s link.',
  fullName: 'Your name',
  email: 'Email',
  optional: '(optional)',
  choose: 'Choose…',
  apply: 'Apply',
  fixFields: 'Please correct the marked fields.',
  formExpired: 'The form had expired. Please check it and send it again.',
  errRequired: 'Please answer this.',
  errName: 'Please enter your name (up to 200 characters).',
  errEmail: 'Please enter a valid email address.',
  errUrl: 'Please enter a web address starting with http:// or https://.',
  errOption: 'Please choose one of the options.',
  errTooLong: 'This answer is too long.',
  errInvalid: 'This answer is not valid.',
  sentTitle: 'Check your mail',
  sentText:
    'We have sent a link to confirm your application to the address you gave. The link is valid for 24 hours. No mail? Check the spam folder, or send the form again in 10 minutes.',
  confirmTitle: 'Confirm your application',
  confirmIntro: 'You are about to confirm this application:',
  name: 'Name',
  group: 'Group',
  recruiter: 'Recommended by',
  noRecruiter: 'nobody',
  unnamedPartner: 'a partner',
  confirm: 'Confirm',
  confirmedTitle: 'Application confirmed',
  confirmedPending: 'Thank you! The program will review your application and write to you.',
  confirmedApproved: 'Welcome! You are a partner now.',
  portal: 'Go to the partner portal',
  invalidTitle: 'This link does not work',
  invalidText:
    'It has expired, has been used already, or is incomplete. Send the application form again to get a new link.',
  closedTitle: 'Not taking applications',
  closedText: 'This program does not take applications here.',
};
export type JoinTexts = FrameTexts & typeof EN;

const RU: typeof EN = {
  joinTitle: 'Стать партнёром',
  joinIntro: (tenant, group) =>
    `Заявка в партнёрскую программу «${tenant}» (группа «${group}»). Мы пришлём письмо со ссылкой для подтверждения заявки.`,
  recommendedBy: (name) => `Вас пригласил(а) ${name}.`,
  recommended: 'Вы пришли по ссылке партнёра.',
  fullName: 'Ваше имя',
  email: 'Email',
  optional: '(необязательно)',
  choose: 'Выберите…',
  apply: 'Отправить заявку',
  fixFields: 'Исправьте отмеченные поля.',
  formExpired: 'Форма устарела. Проверьте её и отправьте ещё раз.',
  errRequired: 'Заполните это поле.',
  errName: 'Укажите имя (до 200 символов).',
  errEmail: 'Укажите правильный адрес почты.',
  errUrl: 'Укажите адрес сайта, начинающийся с http:// или https://.',
  errOption: 'Выберите один из вариантов.',
  errTooLong: 'Слишком длинный ответ.',
  errInvalid: 'Неверный ответ.',
  sentTitle: 'Проверьте почту',
  sentText:
    'Мы отправили ссылку для подтверждения заявки на указанный адрес. Ссылка действует 24 часа. Письма нет? Проверьте папку «Спам» или отправьте форму ещё раз через 10 минут.',
  confirmTitle: 'Подтвердите заявку',
  confirmIntro: 'Вы подтверждаете эту заявку:',
  name: 'Имя',
  group: 'Группа',
  recruiter: 'Пригласил(а)',
  noRecruiter: 'никто',
  unnamedPartner: 'партнёр',
  confirm: 'Подтвердить',
  confirmedTitle: 'Заявка подтверждена',
  confirmedPending: 'Спасибо! Программа рассмотрит заявку и напишет вам.',
  confirmedApproved: 'Добро пожаловать! Теперь вы партнёр.',
  portal: 'Перейти в кабинет партнёра',
  invalidTitle: 'Ссылка не работает',
  invalidText:
    'Срок её действия истёк, она уже использована или скопирована не полностью. Отправьте заявку ещё раз, чтобы получить новую ссылку.',
  closedTitle: 'Заявки не принимаются',
  closedText: 'Эта программа не принимает здесь заявки.',
};

export const JOIN_TEXTS: Record<Lang, JoinTexts> = {
  en: { ...FRAME_TEXTS.en, ...EN },
  ru: { ...FRAME_TEXTS.ru, ...RU },
};
