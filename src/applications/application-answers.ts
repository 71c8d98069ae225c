import type { FieldError } from '../common/errors/domain-error';
import type { SignupField } from '../groups/group.entity';

/** The longest answer of a one-line field (text, url, select) and of a textarea. */
export const MAX_LINE_ANSWER = 500;
export const MAX_TEXTAREA_ANSWER = 4000;

/**
 * The answers of an application checked against its group's questions (docs/partners.md,
 * "Applications"): only the group's fields, each a string; a required one not blank; a `url` an
 * absolute http(s) URL; a `select` one of its options; lengths bounded. Answers are trimmed and
 * blank optional ones left out. `prefix` names the errors' fields (`answers.<name>`).
 */
export function checkAnswers(
  fields: readonly SignupField[],
  given: Record<string, unknown>,
  prefix = 'answers',
): { answers: Record<string, string>; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const answers: Record<string, string> = {};
  const known = new Set(fields.map((f) => f.name));
  for (const name of Object.keys(given)) {
    if (!known.has(name))
      errors.push({ field: `${prefix}.${name}`, message: 'is not a question of this group' });
  }
  for (const field of fields) {
    const at = `${prefix}.${field.name}`;
    const raw = given[field.name];
    if (raw !== undefined && raw !== null && typeof raw !== 'string') {
      errors.push({ field: at, message: 'must be a string' });
      continue;
    }
    const value = (raw ?? '').trim();
    if (!value) {
      if (field.required) errors.push({ field: at, message: 'is required' });
      continue;
    }
    const max = field.type === 'textarea' ? MAX_TEXTAREA_ANSWER : MAX_LINE_ANSWER;
    if (value.length > max) {
      errors.push({ field: at, message: `must be at most ${max} characters` });
      continue;
    }
    if (field.type === 'url' && !isWebUrl(value)) {
      errors.push({ field: at, message: 'must be an http or https URL' });
      continue;
    }
    if (field.type === 'select' && !(field.options ?? []).includes(value)) {
      errors.push({ field: at, message: 'must be one of the options' });
      continue;
    }
    answers[field.name] = value;
  }
  return { answers, errors };
}

function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}
