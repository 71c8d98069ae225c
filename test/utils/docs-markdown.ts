/**
 * Docs as tests: the examples of the README and the guides, read from the Markdown, and the rules
 * by which a printed answer is compared with the real one (test/e2e/service/docs.e2e-spec.ts runs them).
 *
 * **What is an example.** A fenced ```sh block is a command, run as written. The fenced block
 * right after it (only blank lines or `<!-- docs-test: … -->` comments between), when its
 * language is `json`, `text` or `http`, is the answer the command prints. A ```sh block without
 * such a block must only succeed. An HTML comment `<!-- docs-test: … -->` on the line before a
 * block says how to treat it:
 *
 * - `skip (why)` before a ```sh block: not run (a reason is required: Docker, a benchmark, the
 *   test suite itself); Jest lists it as skipped;
 * - `background` before a ```sh block: a long-running command (a server): started, its first
 *   output compared with its answer block, and stopped at the end of the document;
 * - `unordered` before an answer block: its arrays may list their elements in any order (the
 *   answer says the order is not guaranteed).
 *
 * **How an answer is compared** (`matchAnswer`). Values that differ on every run are wildcards:
 *
 * - `…` anywhere in a printed string means "anything here"; a string that is only `"…"` matches
 *   any value; a key `"…"` in an object allows further keys; an array whose last element is
 *   `"…"` allows further elements;
 * - ids (`usr_`, `mbr_`, `lead_`, `ofr_`, `cnv_`, `dl_`, `bns_`, `evt_`, `org_`, `key_`, `stt_`,
 *   `aud_`, `sic_`, `prv_` + a ULID, whole or shortened with `…`), bare ULIDs (request ids), ISO
 *   timestamps, secrets (`tk_`, `stf_`, `whsec_`, `adm_` + base64 or base64url), JWTs and signed refs
 *   (`eyJ…`), short-link codes (8 letters and digits, mixed case), build versions (16 hex
 *   digits), `sha384-…` integrity values, and 10- or 13-digit numbers starting with 1 (epoch
 *   seconds and milliseconds) match any value of their kind;
 * - a whole id printed twice in one document must stand for the same real id both times, and two
 *   different printed ids for two different real ones, so the story a page tells stays true;
 * - `relative_time`, `duration_ms`, `bytes` and `gzip_bytes` match any value of their type;
 * - no-break spaces (Intl's) compare as spaces; JSON is compared as values (key order and
 *   layout are free; every printed key must be there, and no other unless `"…"` allows it);
 *   `http` answers compare the status line, the headers shown (others are ignored) and the
 *   body; `text` answers compare line by line (blank lines aside), a line `…` standing for any
 *   number of lines.
 */
import { readFileSync } from 'node:fs';

export type AnswerLang = 'json' | 'text' | 'http';

export interface Answer {
  lang: AnswerLang;
  text: string;
  line: number;
  unordered: boolean;
}

export interface DocStep {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  script: string;
  skip?: string;
  background: boolean;
  answer?: Answer;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/;
const DIRECTIVE = /^\s*<!--\s*docs-test:\s*(.*?)\s*-->\s*$/;
const ANSWER_LANGS = new Set(['json', 'text', 'http']);

interface Fence {
  lang: string;
  line: number;
  body: string;
  directive?: string;
  /** Index of the first line after the closing fence. */
  end: number;
}

function fences(lines: string[]): Fence[] {
  const out: Fence[] = [];
  let directive: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]);
    if (!open) {
      const d = DIRECTIVE.exec(lines[i]);
      if (d) directive = d[1];
      else if (lines[i].trim() !== '') directive = undefined;
      continue;
    }
    // A fence may be indented (in a list item): so is its body.
    const [, indent, marker, lang] = open;
    let j = i + 1;
    while (j < lines.length && !lines[j].trimStart().startsWith(marker)) j++;
    out.push({
      lang,
      line: i + 1,
      body: lines
        .slice(i + 1, j)
        .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l.trimStart()))
        .join('\n'),
      directive,
      end: j + 1,
    });
    directive = undefined;
    i = j;
  }
  return out;
}

/** The ```sh steps of a Markdown file, each with the answer printed after it. */
export function docSteps(path: string, name: string): DocStep[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const all = fences(lines);
  const steps: DocStep[] = [];
  for (let k = 0; k < all.length; k++) {
    const f = all[k];
    if (f.lang !== 'sh') continue;
    const next = all[k + 1];
    const between = next ? lines.slice(f.end, next.line - 1) : [];
    const adjacent =
      next !== undefined && between.every((l) => l.trim() === '' || DIRECTIVE.test(l));
    let skip: string | undefined;
    let background = false;
    if (f.directive !== undefined) {
      const m = /^skip\s*\((.+)\)$/.exec(f.directive);
      if (m) skip = m[1];
      else if (f.directive === 'background') background = true;
      else throw new Error(`${name}:${f.line}: unknown docs-test directive "${f.directive}"`);
    }
    let answer: Answer | undefined;
    if (adjacent && ANSWER_LANGS.has(next.lang)) {
      if (next.directive !== undefined && next.directive !== 'unordered') {
        throw new Error(`${name}:${next.line}: unknown docs-test directive "${next.directive}"`);
      }
      answer = {
        lang: next.lang as AnswerLang,
        text: next.body,
        line: next.line,
        unordered: next.directive === 'unordered',
      };
    }
    steps.push({ file: name, line: f.line, script: f.body, skip, background, answer });
  }
  return steps;
}

// ---------------------------------------------------------------------------------------------
// Comparison

const ID_PREFIXES = 'usr|mbr|lead|ofr|cnv|dl|bns|evt|org|key|stt|aud|sic|prv';
const B64 = '[A-Za-z0-9_-]';
const SECRET_CHARS = '[A-Za-z0-9_+/=-]';

interface TokenRule {
  name: string;
  /** Matches the token in a printed (expected) string. */
  printed: string;
  /** What it matches in the real answer. */
  real: (token: string) => string;
  /** Tokens bound across a document (the same printed id, the same real id). */
  bind?: (token: string) => boolean;
}

const RULES: TokenRule[] = [
  {
    name: 'secret',
    // Webhook secrets are `whsec_` + standard base64 (+ / =), the others base64url.
    printed: `\\b(?:tk|stf|whsec|adm)_${SECRET_CHARS}*…?`,
    real: (t) => `${t.slice(0, t.indexOf('_') + 1)}${SECRET_CHARS}{16,}`,
  },
  {
    name: 'jwt',
    printed: `\\beyJ[A-Za-z0-9_.-]*(?:…[A-Za-z0-9_.-]*)?`,
    real: () => `eyJ${B64}+(?:\\.${B64}+){1,2}`,
  },
  {
    name: 'id',
    printed: `\\b(?:${ID_PREFIXES})_(?:[0-9A-Z]{26}\\b|[0-9A-Z]*…[0-9A-Z]*)`,
    real: (t) => `${t.slice(0, t.indexOf('_') + 1)}[0-9A-Z]{26}`,
    bind: (t) => !t.includes('…'),
  },
  {
    name: 'timestamp',
    printed:
      '\\b\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d{1,9})?)?(?:Z|[+-]\\d{2}:\\d{2})',
    real: () =>
      '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d{1,9})?)?(?:Z|[+-]\\d{2}:\\d{2})',
  },
  { name: 'ulid', printed: '\\b[0-7][0-9A-HJKMNP-TV-Z]{25}\\b', real: () => '[0-9A-Z]{26}' },
  { name: 'integrity', printed: 'sha384-[A-Za-z0-9+/=]+', real: () => 'sha384-[A-Za-z0-9+/=]{64}' },
  { name: 'hex16', printed: '\\b[0-9a-f]{16}\\b', real: () => '[0-9a-f]{16}' },
  { name: 'epoch', printed: '\\b1\\d{9}(?:\\d{3})?\\b', real: (t) => `\\d{${t.length}}` },
  { name: 'short-code', printed: '(?<=/s/)[A-Za-z0-9]{8}\\b', real: () => '[A-Za-z0-9]{8}' },
  { name: 'anything', printed: '…', real: () => '[\\s\\S]*?' },
];
const TOKENS = new RegExp(RULES.map((r) => `(${r.printed})`).join('|'), 'g');
/** A whole printed string that is a short-link code (8 letters and digits, mixed case). */
const CODE_VALUE = /^(?=[A-Za-z0-9]*[A-Z])(?=[A-Za-z0-9]*[a-z])[A-Za-z0-9]{8}$/;
const ANY_VALUE_KEYS = new Set(['relative_time', 'duration_ms', 'bytes', 'gzip_bytes']);

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const spaces = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

/** Printed ids bound to real ones, per document, both ways. */
export class Bindings {
  private readonly printedToReal = new Map<string, string>();
  private readonly realToPrinted = new Map<string, string>();

  check(printed: string, real: string): string | undefined {
    const known = this.printedToReal.get(printed);
    if (known !== undefined && known !== real) {
      return `${printed} stood for ${known} earlier in this document, here for ${real}`;
    }
    const other = this.realToPrinted.get(real);
    if (other !== undefined && other !== printed) {
      return `${real} was printed as ${other} earlier in this document, here as ${printed}`;
    }
    return undefined;
  }

  bind(printed: string, real: string): void {
    this.printedToReal.set(printed, real);
    this.realToPrinted.set(real, printed);
  }

  clone(): Bindings {
    const copy = new Bindings();
    this.printedToReal.forEach((real, printed) => copy.bind(printed, real));
    return copy;
  }
}

/** Matches a real string against a printed one; undefined when it matches, else why not. */
export function matchString(printed: string, real: string, bindings: Bindings): string | undefined {
  const expected = spaces(printed);
  const actual = spaces(real);
  if (CODE_VALUE.test(expected)) {
    return /^[A-Za-z0-9]{8}$/.test(actual)
      ? undefined
      : `expected a short-link code, got ${JSON.stringify(real)}`;
  }
  let source = '^';
  const bound: string[] = [];
  let last = 0;
  for (const m of expected.matchAll(TOKENS)) {
    source += escapeRe(expected.slice(last, m.index));
    const ruleIndex = m.slice(1).findIndex((g) => g !== undefined);
    const rule = RULES[ruleIndex];
    const token = m[0];
    if (rule.bind?.(token)) {
      bound.push(token);
      source += `(${rule.real(token)})`;
    } else {
      source += `(?:${rule.real(token)})`;
    }
    last = m.index + token.length;
  }
  source += `${escapeRe(expected.slice(last))}$`;
  const match = new RegExp(source).exec(actual);
  if (!match) return `expected ${JSON.stringify(printed)}, got ${JSON.stringify(real)}`;
  for (let i = 0; i < bound.length; i++) {
    const why = bindings.check(bound[i], match[i + 1]);
    if (why) return why;
  }
  bound.forEach((token, i) => bindings.bind(token, match[i + 1]));
  return undefined;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const typeOf = (v: Json) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

function matchJson(
  printed: Json,
  real: Json,
  path: string,
  bindings: Bindings,
  unordered: boolean,
): string | undefined {
  const at = (why: string) => `${path || '(top)'}: ${why}`;
  if (printed === '…') return undefined;
  const key = path.split('.').pop() ?? '';
  if (ANY_VALUE_KEYS.has(key)) {
    return typeOf(printed) === typeOf(real)
      ? undefined
      : at(`expected a ${typeOf(printed)}, got ${JSON.stringify(real)}`);
  }
  if (typeof printed === 'string') {
    if (typeof real !== 'string') return at(`expected a string, got ${JSON.stringify(real)}`);
    const why = matchString(printed, real, bindings);
    return why && at(why);
  }
  if (typeof printed === 'number') {
    const epoch = /^1\d{9}(\d{3})?$/.test(String(printed));
    const ok = epoch
      ? typeof real === 'number' && String(real).length === String(printed).length
      : real === printed;
    return ok ? undefined : at(`expected ${printed}, got ${JSON.stringify(real)}`);
  }
  if (printed === null || typeof printed === 'boolean') {
    return real === printed ? undefined : at(`expected ${printed}, got ${JSON.stringify(real)}`);
  }
  if (Array.isArray(printed)) {
    if (!Array.isArray(real)) return at(`expected an array, got ${JSON.stringify(real)}`);
    const open = printed.length > 0 && printed[printed.length - 1] === '…';
    const items = open ? printed.slice(0, -1) : printed;
    if (open ? real.length < items.length : real.length !== items.length) {
      return at(`expected ${open ? 'at least ' : ''}${items.length} elements, got ${real.length}`);
    }
    if (!unordered) {
      for (let i = 0; i < items.length; i++) {
        const why = matchJson(items[i], real[i], `${path}[${i}]`, bindings, unordered);
        if (why) return why;
      }
      return undefined;
    }
    // Any order: each printed element takes the first real one it matches (bindings are made
    // only once an element matches, on a scratch copy).
    const free = real.map((_, i) => i);
    for (let i = 0; i < items.length; i++) {
      const j = free.findIndex(
        (r) => matchJson(items[i], real[r], '', bindings.clone(), true) === undefined,
      );
      if (j < 0) return at(`no element matches ${JSON.stringify(items[i])}`);
      matchJson(items[i], real[free[j]], '', bindings, true);
      free.splice(j, 1);
    }
    return undefined;
  }
  if (typeof real !== 'object' || real === null || Array.isArray(real)) {
    return at(`expected an object, got ${JSON.stringify(real)}`);
  }
  const open = '…' in printed;
  for (const [k, v] of Object.entries(printed)) {
    if (k === '…') continue;
    if (!(k in real)) return at(`missing key "${k}"`);
    const why = matchJson(v, real[k], path ? `${path}.${k}` : k, bindings, unordered);
    if (why) return why;
  }
  if (!open) {
    const extra = Object.keys(real).filter((k) => !(k in printed));
    if (extra.length) return at(`keys not printed: ${extra.join(', ')}`);
  }
  return undefined;
}

/** Splits concatenated JSON values (`{…}{…}` or one per line) apart. */
export function jsonDocuments(text: string): Json[] {
  const out: Json[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (depth++ === 0) start = i;
    } else if (c === '}' || c === ']') {
      if (--depth === 0) out.push(JSON.parse(text.slice(start, i + 1)) as Json);
    } else if (depth === 0 && c.trim() !== '') {
      throw new Error(`not JSON at ${JSON.stringify(text.slice(i, i + 40))}`);
    }
  }
  if (depth !== 0) throw new Error('unterminated JSON');
  return out;
}

function matchJsonText(
  printed: string,
  real: string,
  bindings: Bindings,
  unordered: boolean,
): string | undefined {
  let expected: Json[];
  let actual: Json[];
  try {
    expected = jsonDocuments(printed);
  } catch (e) {
    return `the printed answer is not JSON: ${(e as Error).message}`;
  }
  try {
    actual = jsonDocuments(real);
  } catch (e) {
    return `the answer is not JSON (${(e as Error).message}): ${real.slice(0, 300)}`;
  }
  if (expected.length !== actual.length) {
    return `expected ${expected.length} JSON document(s), got ${actual.length}: ${real.slice(0, 300)}`;
  }
  for (let i = 0; i < expected.length; i++) {
    const why = matchJson(expected[i], actual[i], '', bindings, unordered);
    if (why) return expected.length > 1 ? `document ${i + 1}: ${why}` : why;
  }
  return undefined;
}

function matchText(printed: string, real: string, bindings: Bindings): string | undefined {
  const lines = (text: string) =>
    text
      .replace(/\r/g, '')
      .split('\n')
      .map((l) => l.trimEnd())
      .filter((l) => l !== '');
  const expected = lines(printed);
  const actual = lines(real);
  const go = (e: number, a: number): string | undefined => {
    if (e === expected.length) {
      return a === actual.length ? undefined : `unexpected line: ${JSON.stringify(actual[a])}`;
    }
    if (expected[e] === '…') {
      for (let k = a; k <= actual.length; k++) if (go(e + 1, k) === undefined) return undefined;
      return `nothing after "…" matches ${JSON.stringify(expected[e + 1])}`;
    }
    if (a === actual.length) return `missing line: ${JSON.stringify(expected[e])}`;
    const why = matchString(expected[e], actual[a], bindings);
    return why ? `line ${a + 1}: ${why}` : go(e + 1, a + 1);
  };
  return go(0, 0);
}

interface HttpMessage {
  status: string;
  headers: [string, string][];
  body: string;
}

function parseHttp(text: string): HttpMessage {
  const normal = text.replace(/\r\n/g, '\n');
  const split = normal.indexOf('\n\n');
  const head = split < 0 ? normal : normal.slice(0, split);
  const body = split < 0 ? '' : normal.slice(split + 2);
  const [status, ...lines] = head.split('\n');
  const headers = lines
    .filter((l) => l.trim() !== '')
    .map((l): [string, string] => {
      const colon = l.indexOf(':');
      return [l.slice(0, colon).trim().toLowerCase(), l.slice(colon + 1).trim()];
    });
  return { status: status.trim(), headers, body: body.trim() };
}

function matchHttp(
  printed: string,
  real: string,
  bindings: Bindings,
  unordered: boolean,
): string | undefined {
  const e = parseHttp(printed);
  const a = parseHttp(real);
  const status = matchString(e.status, a.status, bindings);
  if (status) return `status line: ${status}`;
  for (const [name, value] of e.headers) {
    const candidates = a.headers.filter(([n]) => n === name);
    if (!candidates.length) return `header ${name} is missing`;
    const whys = candidates.map(([, v]) => matchString(value, v, bindings));
    if (whys.every((w) => w !== undefined)) return `header ${name}: ${whys[0]}`;
  }
  if (e.body === '') return undefined;
  const jsonBody = /^[[{]/.test(e.body);
  const why = jsonBody
    ? matchJsonText(e.body, a.body, bindings, unordered)
    : matchText(e.body, a.body, bindings);
  return why && `body: ${why}`;
}

/** Undefined when the real output matches the printed answer, else a description of the first difference. */
export function matchAnswer(answer: Answer, real: string, bindings: Bindings): string | undefined {
  switch (answer.lang) {
    case 'json':
      return matchJsonText(answer.text, real, bindings, answer.unordered);
    case 'http':
      return matchHttp(answer.text, real, bindings, answer.unordered);
    default:
      return matchText(answer.text, real, bindings);
  }
}

/** The value at `path` (`a.b[0].c`) of the newest JSON output that has one. */
export function valueAt(outputs: string[], path: string): string | undefined {
  const parts = path
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter(Boolean);
  for (let i = outputs.length - 1; i >= 0; i--) {
    let docs: Json[];
    try {
      docs = jsonDocuments(outputs[i]);
    } catch {
      continue;
    }
    for (let d = docs.length - 1; d >= 0; d--) {
      let v: Json | undefined = docs[d];
      for (const p of parts) {
        v = v !== null && typeof v === 'object' ? (v as Record<string, Json>)[p] : undefined;
        if (v === undefined) break;
      }
      if (v !== undefined && v !== null && typeof v !== 'object') return String(v);
    }
  }
  return undefined;
}
