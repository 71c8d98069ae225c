import { isDisposableEmail } from './disposable-domains';

describe('isDisposableEmail', () => {
  it.each([
    'x@mailinator.com',
    'X@MAILINATOR.COM',
    'x@eu.mailinator.com',
    'x@yopmail.com',
    'x@mailinator.com.',
  ])('%s is disposable', (email) => expect(isDisposableEmail(email)).toBe(true));

  it.each(['x@gmail.com', 'x@example.org', 'x@mailinator.com.evil.example', 'no-at-sign', 'x@com'])(
    '%s is not',
    (email) => expect(isDisposableEmail(email)).toBe(false),
  );
});
