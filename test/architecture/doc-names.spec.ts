import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/**
 * The names the documents give exist: a test file a list names, and the class, member, file and
 * folder a guide puts in `code` (README.md, docs/*.md). A rename that leaves a document behind
 * fails here rather than in a reader's search. The spec files named in comments of src/ and test/
 * (the shared suites list their specs) are checked too.
 */

/** In `code`, but not ours: library and platform names, and build output. */
const NOT_OURS = new Set([
  'forwardRef', // @nestjs/common
  'targetOrigin', // window.postMessage
  'allowScripts', // the browser's sandbox
  'responseTime', // pino-http's field
  'toValidate', // class-validator's pipe
  'transformPrimitive', // Nest's ParseIntPipe and kin
  'OnJob', // immich, the example the architecture follows
  'dist/', // the build's output
]);

const root = resolve(__dirname, '../..');
const SKIP = new Set(['node_modules', 'dist', '.git', 'coverage', 'test-output']);

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [relative(root, path)];
  });
}

const files = [
  ...['src', 'test', 'bench', 'examples', 'docs', '.ci'].flatMap((dir) => walk(join(root, dir))),
  ...readdirSync(root).filter((name) => statSync(join(root, name)).isFile()),
];
const folders = new Set(
  files.flatMap((file) => {
    const parts = file.split('/');
    return parts.slice(1).map((_, i) => `${parts.slice(0, i + 1).join('/')}/`);
  }),
);
const code = files.filter((file) => /\.(tsx?|mjs|js)$/.test(file) && !file.startsWith('docs/'));
const sources = new Map(code.map((file) => [file, readFileSync(join(root, file), 'utf8')]));
const identifiers = new Set([...sources.values()].flatMap((text) => text.match(/[\w$]+/g) ?? []));

/** A path as written (`common/pages/`, `../bench/harness.ts`) names a file or folder we have. */
const pathExists = (written: string, set: Iterable<string>) => {
  const path = written.replace(/^(\.\.?\/)+/, '');
  for (const have of set) if (have === path || have.endsWith(`/${path}`)) return true;
  return false;
};

/** `a-{b,c}.ts` → `a-b.ts`, `a-c.ts`. */
const expand = (pattern: string): string[] => {
  const match = /\{([^{}]*)\}/.exec(pattern);
  if (!match) return [pattern];
  return match[1].split(',').flatMap((part) => expand(pattern.replace(match[0], part)));
};

/** A glob (`*` within a name) as a test of a path's end. */
const globMatches = (glob: string) => {
  const body = glob
    .replace(/^(\.\.?\/)+/, '')
    .replace(/[.+?^$()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '[^/]*');
  const pattern = new RegExp(`(^|/)${body}$`);
  return files.some((file) => pattern.test(file));
};

const documents = ['README.md', ...files.filter((file) => /^docs\/[^/]+\.md$/.test(file))];
const prose = (document: string) =>
  readFileSync(join(root, document), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
const spans = (document: string) => [...prose(document).matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);

describe('names in the documents', () => {
  it('every spec file a document or a comment names exists', () => {
    const texts = [
      ...documents.map((document) => [document, readFileSync(join(root, document), 'utf8')]),
      ...[...sources].filter(
        ([file]) => /^(src|test)\//.test(file) && !file.endsWith(__filename.slice(root.length + 1)),
      ),
    ];
    const missing: string[] = [];
    const SPEC = /(?<![\w.*/-])[\w{][\w./{},*-]*\.(?:browser\.)?(?:e2e-)?spec\.tsx?\b/g;
    // A brace list may run over a comment's line break: `{a,\n * b}.e2e-spec.ts`.
    const unfold = (text: string) =>
      text.replace(/\{[\w,\s*/-]*\}/g, (list) => list.replace(/\n\s*(?:\*|\/\/)?|\s+/g, ''));
    for (const [where, text] of texts) {
      for (const [named] of unfold(text).matchAll(SPEC)) {
        for (const path of expand(named)) {
          if (path.includes('*') ? globMatches(path) : pathExists(path, files)) continue;
          missing.push(`${where}: ${path}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('every class, member, file and folder a guide puts in code exists', () => {
    const missing: string[] = [];
    const declares = (name: string) =>
      new RegExp(`\\b(?:class|interface|type|const|function|enum)\\s+${name}\\b`);
    for (const document of documents) {
      for (const span of spans(document)) {
        const names = [
          ...span.matchAll(/(?<![\w.$-])([A-Z][a-z]\w*[A-Z]\w*|[a-z]+[A-Z]\w*)(?![\w-])/g),
        ].map((m) => m[1]);
        for (const name of names) {
          if (!identifiers.has(name) && !NOT_OURS.has(name)) missing.push(`${document}: ${name}`);
        }
        for (const [, owner, member] of span.matchAll(/\b([A-Z]\w+)\.([a-z]\w*)\b/g)) {
          const declared = [...sources.values()].filter((text) => declares(owner).test(text));
          if (declared.length === 0) continue;
          if (!declared.some((text) => new RegExp(`\\b${member}\\b`).test(text))) {
            missing.push(`${document}: ${owner}.${member}`);
          }
        }
        for (const [, path] of span.matchAll(
          /(?:^|[\s(])((?:\.\.?\/)?[\w-][\w.-]*(?:\/[\w.-]+)*\.(?:tsx?|mjs))\b/g,
        )) {
          if (!pathExists(path, files)) missing.push(`${document}: ${path}`);
        }
        const folder = /^(?:\.\.?\/)?[a-z][\w-]*\/(?:[\w.-]+\/)*$/.exec(span);
        if (folder && !NOT_OURS.has(folder[0]) && !pathExists(folder[0], folders)) {
          missing.push(`${document}: ${folder[0]}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
