// typescript-eslint with type information: the rules that catch real bugs in a Nest service
// (floating promises, non-exhaustive switches) are the reason this config exists.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import { boundariesConfig } from './eslint.boundaries.mjs';

// TypeORM's driver (the raw pool) and COPY streams, outside database/ (docs/architecture.md, "Data
// access"): the pool is taken through database/ (raw-pool.ts, TransactionHost.pool), COPY runs in
// database/ or a repository. test/architecture/sql-in-repositories.spec.ts checks the SQL calls.
const NO_DRIVER = {
  selector: "MemberExpression[property.name='driver']",
  message: "TypeORM's driver is database/'s: take the pool with rawPool (database/raw-pool.ts).",
};
const NO_COPY_STREAMS = {
  selector: "ImportDeclaration[source.value='pg-copy-streams']",
  message: 'COPY runs in database/ (copy-out.ts) or a repository.',
};

// Nest's public API is what its packages' roots export; a path below one (`@nestjs/core/router/…`,
// `@nestjs/common/constants`, `@nestjs/swagger/dist/…`) is its internals, which a minor release
// may move or change (docs/architecture.md, "Fast lanes"). Nowhere in src/.
const nestInternals = {
  group: ['@nestjs/*/**'],
  message:
    "Import from the package's root (@nestjs/common, @nestjs/core, …): a deeper path is Nest's internals. " +
    "Route metadata: src/common/http/route-metadata.ts.",
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'examples/**', '*.mjs', '*.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  prettier,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  // Module boundaries: what common/ and each feature may import (docs/architecture.md,
  // "Module boundaries"; the rules are in eslint.boundaries.mjs).
  boundariesConfig,
  {
    // `@IsOptional()` lets `null` through to the services; request DTOs use `@Optional()`, which
    // refuses it (docs/architecture.md, "Decisions where the spec was silent").
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/config/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'class-validator',
              importNames: ['IsOptional'],
              message: 'Use Optional() from src/common/validation/optional: null is not absent.',
            },
          ],
          patterns: [nestInternals],
        },
      ],
    },
  },
  {
    // src/config/ may use IsOptional (above), not Nest's internals.
    files: ['src/config/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { patterns: [nestInternals] }] },
  },
  {
    // One way to the database: NO_DRIVER and NO_COPY_STREAMS above.
    files: ['src/**/*.ts'],
    ignores: ['src/database/**', 'src/**/*.repository.ts'],
    rules: { 'no-restricted-syntax': ['error', NO_DRIVER, NO_COPY_STREAMS] },
  },
  {
    files: ['src/**/*.repository.ts'],
    rules: { 'no-restricted-syntax': ['error', NO_DRIVER] },
  },
  {
    // Pages escape by default (preact-render-to-string); raw HTML only in the view layer's one
    // file for a page's own style, script and script data (docs/architecture.md, "Pages").
    files: ['src/**/*.tsx'],
    ignores: ['src/common/pages/inline.tsx'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']",
          message: 'Text and attributes are escaped by the view layer; use common/pages/inline.tsx.',
        },
      ],
    },
  },
);
