import { QUERY_VALUE_MAX, withQuery } from './page';

describe('withQuery', () => {
  it('builds the query, leaving out empty values', () => {
    expect(withQuery('/org/a/bonuses', { status: 'pending', q: '', page: undefined })).toBe(
      '/org/a/bonuses?status=pending',
    );
    expect(withQuery('/org/a/bonuses', {})).toBe('/org/a/bonuses');
  });

  it('cuts a value a form could not have sent, so that the Location stays a valid header', () => {
    // What the OpenAPI fuzz battery once sent as a program form's `offer`: 30,000 characters,
    // echoed in the refusal, made a Location no HTTP client would read.
    const hostile = '['.repeat(15_000) + ']'.repeat(15_000);
    const location = withQuery('/org/a/program', { error: `No offer "${hostile}".`, q: 'x' });
    const error = new URL(location, 'http://h').searchParams.get('error')!;
    expect(error).toHaveLength(QUERY_VALUE_MAX);
    expect(error.endsWith('…')).toBe(true);
    expect(error.startsWith('No offer "[[[')).toBe(true);
    expect(location.length).toBeLessThan(8 * QUERY_VALUE_MAX);
    expect(new URL(location, 'http://h').searchParams.get('q')).toBe('x');
  });

  it('keeps a value of the longest length as it is', () => {
    const value = 'é'.repeat(QUERY_VALUE_MAX);
    expect(new URL(withQuery('/p', { v: value }), 'http://h').searchParams.get('v')).toBe(value);
  });
});
