import { promotionLoops, signupErrors, withSignupDefaults } from './group-settings';

describe('group settings', () => {
  it('finds a promotion loop through other groups, and none on a chain', () => {
    const others = new Map([
      ['b', 'c'],
      ['c', 'a'],
    ]);
    expect(promotionLoops(others, 'a', 'b')).toBe(true);
    expect(promotionLoops(new Map([['b', 'c']]), 'a', 'b')).toBe(false);
    expect(promotionLoops(new Map(), 'a', 'a')).toBe(true);
    // The group's own old target is replaced by the new one.
    expect(
      promotionLoops(
        new Map([
          ['a', 'b'],
          ['b', 'a'],
        ]),
        'a',
        'c',
      ),
    ).toBe(false);
  });

  it('refuses repeated names, a select without options and options elsewhere', () => {
    const errors = signupErrors({
      fields: [
        { name: 'site', label: 'Site', type: 'url', required: true, options: ['x'] },
        { name: 'site', label: 'Again', type: 'text', required: false },
        { name: 'kind', label: 'Kind', type: 'select', required: true },
      ],
    });
    expect(errors.map((e) => e.field)).toEqual([
      'signup.fields.0.options',
      'signup.fields.1.name',
      'signup.fields.2.options',
    ]);
  });

  it('defaults to a closed group without questions', () => {
    expect(withSignupDefaults()).toEqual({ enabled: false, auto_approve: false, fields: [] });
  });
});
