import type { SignupField } from '../groups/group.entity';
import { checkAnswers, MAX_LINE_ANSWER } from './application-answers';

const FIELDS: SignupField[] = [
  { name: 'site', label: 'Site', type: 'url', required: true },
  { name: 'about', label: 'About', type: 'textarea', required: false },
  {
    name: 'channel',
    label: 'Channel',
    type: 'select',
    required: false,
    options: ['Blog', 'Video'],
  },
];

describe('checkAnswers', () => {
  it('keeps trimmed answers and leaves blank optional ones out', () => {
    expect(
      checkAnswers(FIELDS, { site: ' https://a.example ', about: '  ', channel: 'Blog' }),
    ).toEqual({
      answers: { site: 'https://a.example', channel: 'Blog' },
      errors: [],
    });
  });

  it('names every refused answer', () => {
    const { errors } = checkAnswers(FIELDS, {
      about: 5,
      channel: 'Radio',
      other: 'x',
    });
    expect(errors).toEqual([
      { field: 'answers.other', message: 'is not a question of this group' },
      { field: 'answers.site', message: 'is required' },
      { field: 'answers.about', message: 'must be a string' },
      { field: 'answers.channel', message: 'must be one of the options' },
    ]);
  });

  it('refuses a non-web URL and an overlong line', () => {
    expect(checkAnswers(FIELDS, { site: 'javascript:alert(1)' }).errors).toEqual([
      { field: 'answers.site', message: 'must be an http or https URL' },
    ]);
    expect(
      checkAnswers(FIELDS, { site: `https://a.example/${'x'.repeat(MAX_LINE_ANSWER)}` }).errors,
    ).toHaveLength(1);
  });
});
