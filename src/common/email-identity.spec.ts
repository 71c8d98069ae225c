import fc from 'fast-check';
import { mailboxOf, sameMailbox } from './email-identity';

describe('mailboxOf', () => {
  it.each([
    ['Ivan.Petrov+shop@googlemail.com', 'ivanpetrov@gmail.com'],
    ['i.v.a.n@gmail.com', 'ivan@gmail.com'],
    ['IVAN@GMAIL.COM', 'ivan@gmail.com'],
    ['ivan+a+b@gmail.com', 'ivan@gmail.com'],
    ['  ivan@gmail.com  ', 'ivan@gmail.com'],
    ['ivan@gmail.com.', 'ivan@gmail.com'],
    ['Anna.K+promo@Outlook.com', 'anna.k@outlook.com'],
    ['anna.k@example.org', 'anna.k@example.org'],
    ['anna+x@mail.ru', 'anna@mail.ru'],
    ['ivan.petrov@ya.ru', 'ivan-petrov@yandex.ru'],
    ['Ivan-Petrov+spam@yandex.com', 'ivan-petrov@yandex.ru'],
    ['+only@example.org', '+only@example.org'],
    ['...@gmail.com', '...@gmail.com'],
    ['not-an-email', 'not-an-email'],
    ['a@b@example.org', 'a@b@example.org'],
  ])('%s → %s', (email, mailbox) => {
    expect(mailboxOf(email)).toBe(mailbox);
  });

  it.each([
    ['anna.k@example.org', 'annak@example.org'],
    ['ivan@gmail.com', 'ivan@gmail.co'],
    ['ivan-1@gmail.com', 'ivan1@gmail.com'],
    ['ivan@yahoo.com', 'ivan-x@yahoo.com'],
  ])('%s and %s are different mailboxes', (a, b) => {
    expect(sameMailbox(a, b)).toBe(false);
  });

  it('a missing address matches nothing', () => {
    expect(sameMailbox(null, 'a@b.example')).toBe(false);
    expect(sameMailbox('a@b.example', undefined)).toBe(false);
    expect(sameMailbox(null, null)).toBe(false);
  });

  const localChar = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789_-'.split(''));
  const local = fc.string({ unit: localChar, minLength: 1, maxLength: 20 });
  const tag = fc.string({ unit: localChar, minLength: 0, maxLength: 10 });
  const domain = fc.constantFrom(
    'gmail.com',
    'googlemail.com',
    'example.org',
    'mail.ru',
    'yandex.ru',
    'ya.ru',
    'outlook.com',
  );
  /** The local part with dots put between some of its characters. */
  const dotted = (s: string, where: boolean[]) =>
    s
      .split('')
      .map((c, i) => (i > 0 && where[i % where.length] ? `.${c}` : c))
      .join('');

  it('is idempotent and ignores case and surrounding spaces', () => {
    fc.assert(
      fc.property(local, domain, (l, d) => {
        const m = mailboxOf(`${l}@${d}`);
        expect(mailboxOf(m)).toBe(m);
        expect(mailboxOf(` ${l.toUpperCase()}@${d.toUpperCase()} `)).toBe(m);
      }),
    );
  });

  it('a +tag never changes the mailbox, on any domain', () => {
    fc.assert(
      fc.property(local, tag, domain, (l, t, d) => {
        expect(mailboxOf(`${l}+${t}@${d}`)).toBe(mailboxOf(`${l}@${d}`));
      }),
    );
  });

  it('Gmail ignores dots and googlemail.com is gmail.com', () => {
    fc.assert(
      fc.property(local, fc.array(fc.boolean(), { minLength: 1 }), (l, where) => {
        const plain = mailboxOf(`${l}@gmail.com`);
        expect(mailboxOf(`${dotted(l, where)}@gmail.com`)).toBe(plain);
        expect(mailboxOf(`${dotted(l, where)}@googlemail.com`)).toBe(plain);
      }),
    );
  });

  it('elsewhere dots count, and different local parts stay different', () => {
    fc.assert(
      fc.property(local, local, (a, b) => {
        fc.pre(a !== b);
        expect(sameMailbox(`${a}@example.org`, `${b}@example.org`)).toBe(false);
        expect(sameMailbox(`${a}@gmail.com`, `${b}@gmail.com`)).toBe(false);
      }),
    );
    expect(sameMailbox('a.b@example.org', 'ab@example.org')).toBe(false);
  });
});
