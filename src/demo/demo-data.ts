/**
 * The demo tenant's network (README.md): a few dozen members, their customers' leads and what
 * became of them. Plain data in chronological order; `DemoSeeder` feeds it through the services.
 */

import type { Actor } from '../common/access/actor';

export const DEMO_SLUG = 'demo';
/** Who the audit log names for what the demo seeding does. */
export const DEMO_ACTOR: Actor = { type: 'platform', name: 'demo-seeder' };
export const DEMO_DISPLAY_NAME = 'Demo Shop';
/** The partner whose widgets `/demo` shows (and who signs in to "Get my link"). */
export const DEMO_PARTNER = 'demo-anna';
/** A member with nobody below and no leads: the widgets' empty states. */
export const DEMO_NEWCOMER = 'demo-sofia';
/** A member the seeder deactivates (the partner list shows it as inactive). */
export const DEMO_INACTIVE = 'demo-alexey';
export const DEMO_EMAIL_DOMAIN = 'demo.example';
/** The offer the demo partner's seeded short link points at, and the link's promo code. */
export const DEMO_OFFER = 'spring-sale';
export const DEMO_PROMO_CODE = 'SPRING10';

/** A demo member's email, from its external id: `demo-anna` → `anna@demo.example`. */
export const demoEmail = (externalId: string) =>
  `${externalId.replace(/^demo-/, '')}@${DEMO_EMAIL_DOMAIN}`;

/** [external_id, full name, referrer's external_id]; every referrer comes before its referrals. */
export const DEMO_MEMBERS: readonly [string, string, string | null][] = [
  ['demo-olga', 'Ольга Кузнецова', null],
  ['demo-anna', 'Анна Смирнова', 'demo-olga'],
  ['demo-boris', 'Борис Орлов', 'demo-olga'],
  ['demo-ivan', 'Иван Петров', 'demo-anna'],
  ['demo-maria', 'Мария Соколова', 'demo-anna'],
  ['demo-dmitry', 'Дмитрий Волков', 'demo-anna'],
  ['demo-lyudmila', 'Людмила Ковалёва', 'demo-boris'],
  ['demo-elena', 'Елена Попова', 'demo-anna'],
  ['demo-pavel', 'Павел Васильев', 'demo-ivan'],
  ['demo-sergey', 'Сергей Морозов', 'demo-anna'],
  ['demo-yulia', 'Юлия Зайцева', 'demo-ivan'],
  ['demo-oleg', 'Олег Семёнов', 'demo-maria'],
  ['demo-natalia', 'Наталья Лебедева', 'demo-anna'],
  ['demo-ksenia', 'Ксения Комарова', 'demo-pavel'],
  ['demo-irina', 'Ирина Голубева', 'demo-maria'],
  ['demo-andrey', 'Андрей Ильин', 'demo-boris'],
  ['demo-alexey', 'Алексей Козлов', 'demo-anna'],
  ['demo-svetlana', 'Светлана Виноградова', 'demo-dmitry'],
  ['demo-nikita', 'Никита Павлов', 'demo-ivan'],
  ['demo-vera', 'Вера Макарова', 'demo-ksenia'],
  ['demo-kirill', 'Кирилл Богданов', 'demo-elena'],
  ['demo-tatiana', 'Татьяна Новикова', 'demo-anna'],
  ['demo-roman', 'Роман Орлов', 'demo-pavel'],
  ['demo-daria', 'Дарья Воробьёва', 'demo-elena'],
  ['demo-artem', 'Артём Киселёв', 'demo-irina'],
  ['demo-polina', 'Полина Михайлова', 'demo-sergey'],
  ['demo-gleb', 'Глеб Андреев', 'demo-vera'],
  ['demo-egor', 'Егор Фёдоров', 'demo-elena'],
  ['demo-timur', 'Тимур Беляев', 'demo-natalia'],
  ['demo-alina', 'Алина Тарасова', 'demo-natalia'],
  ['demo-maxim', 'Максим Белов', 'demo-tatiana'],
  ['demo-sofia', 'София Гусева', 'demo-gleb'],
];

/**
 * What happens to a lead: stays `new`; `processed`; converts (registered conversion, cascade);
 * converts and is then refunded (conversion reversed); `rejected` (its lead bonus with it).
 */
export type LeadFate = 'new' | 'processed' | 'converted' | 'refunded' | 'rejected';

/** [referrer's external_id, customer's name, fate], oldest first. */
export const DEMO_LEADS: readonly [string, string, LeadFate][] = [
  ['demo-anna', 'Кирилл Соловьёв', 'converted'],
  ['demo-anna', 'Марина Ефимова', 'converted'],
  ['demo-ivan', 'Степан Герасимов', 'converted'],
  ['demo-anna', 'Георгий Лазарев', 'rejected'],
  ['demo-anna', 'Вероника Жукова', 'converted'],
  ['demo-maria', 'Оксана Рябова', 'converted'],
  ['demo-anna', 'Антон Сорокин', 'refunded'],
  ['demo-boris', 'Лариса Белоусова', 'converted'],
  ['demo-anna', 'Людмила Титова', 'converted'],
  ['demo-anna', 'Станислав Крылов', 'rejected'],
  ['demo-elena', 'Валентина Быкова', 'converted'],
  ['demo-anna', 'Ангелина Баранова', 'converted'],
  ['demo-ivan', 'Григорий Пономарёв', 'rejected'],
  ['demo-anna', 'Фёдор Никитин', 'processed'],
  ['demo-anna', 'Евгения Медведева', 'converted'],
  ['demo-pavel', 'Эдуард Шубин', 'converted'],
  ['demo-anna', 'Виктор Антонов', 'rejected'],
  ['demo-anna', 'Лилия Фролова', 'converted'],
  ['demo-maria', 'Захар Дьячков', 'processed'],
  ['demo-anna', 'Арсений Гришин', 'new'],
  ['demo-ksenia', 'Яна Калинина', 'converted'],
  ['demo-anna', 'Диана Мельникова', 'processed'],
  ['demo-ivan', 'Альберт Исаев', 'converted'],
  ['demo-anna', 'Ростислав Ершов', 'converted'],
  ['demo-anna', 'Алиса Никифорова', 'processed'],
  ['demo-boris', 'Всеволод Тихонов', 'processed'],
  ['demo-anna', 'Тамара Савельева', 'new'],
  ['demo-elena', 'Матвей Кудрявцев', 'new'],
  ['demo-anna', 'Эльвира Шарова', 'converted'],
  ['demo-anna', 'Богдан Субботин', 'processed'],
  ['demo-natalia', 'Инна Прохорова', 'new'],
  ['demo-anna', 'Семён Котов', 'new'],
  ['demo-anna', 'Ульяна Миронова', 'processed'],
  ['demo-maria', 'Вадим Рожков', 'new'],
  ['demo-anna', 'Зоя Фадеева', 'new'],
  ['demo-anna', 'Леонид Гаврилов', 'new'],
  ['demo-ivan', 'Нелли Панова', 'new'],
  ['demo-anna', 'Ярослав Осипов', 'new'],
  ['demo-anna', 'Карина Щербакова', 'new'],
  ['demo-pavel', 'Мирон Воронцов', 'new'],
  ['demo-anna', 'Олеся Данилова', 'new'],
];

/** Order amounts in kopecks, used in turn by the conversions. */
export const DEMO_ORDER_AMOUNTS: readonly number[] = [
  1_249_000, 389_000, 2_150_000, 560_000, 4_790_000, 799_000, 1_520_000, 2_999_000, 345_000,
  1_100_000, 689_900, 3_450_000, 915_000, 1_875_000, 249_900, 5_200_000,
];

/** The demo program: a 100 ₽ lead bonus and three tiers of commission. */
export const DEMO_PROGRAM = {
  lead_bonus_kopecks: 10_000,
  tiers: [
    { tier: 'referrer', percent_bp: 1000 },
    { tier: 'upline_1', percent_bp: 300 },
    { tier: 'upline_2', percent_bp: 100 },
  ],
  grace_period_hours: 336,
};

/** Customers' contact details: a plausible email, or a phone for every third one. */
export function demoContact(
  index: number,
  name: string,
): { name: string; email?: string; phone?: string } {
  if (index % 3 === 2)
    return {
      name,
      phone: `+7 900 ${String(1_000_000 + index * 7919).slice(1, 4)}-${String(10 + index).padStart(2, '0')}-${String(40 + index).slice(-2)}`,
    };
  return { name, email: `client${String(index + 1).padStart(2, '0')}@mail.example` };
}
