// Module boundaries (docs/architecture.md, "Module boundaries"), enforced by eslint-plugin-boundaries.
// eslint.config.mjs spreads this in; test/architecture/boundaries.spec.ts lints deliberate
// violations with it. Cycles between features are checked by test/architecture/feature-cycles.spec.ts.
import boundaries from 'eslint-plugin-boundaries';

/** Infrastructure: every feature may import it; it imports no feature. */
export const SHARED_FOLDERS = ['common', 'config', 'database', 'redis'];

/**
 * The page frame (layout, navigation, charts, tables, forms, words) of the console and the partner
 * portal: every feature may import it; it imports shared code only, never a feature, and shared
 * code does not import it.
 */
export const FRAME_FOLDER = 'pages';

/**
 * What any feature offers the others, by file name (paths inside the feature's folder): its Nest
 * module, its services (the module exports the ones others inject), its entities, errors and DTOs,
 * and its decorators, guards and middleware. Never a repository, a controller, a view or a helper.
 */
export const PUBLIC_FILES = [
  '**/*.module.ts',
  '**/*.service.ts',
  '**/*.entity.ts',
  '**/*.errors.ts',
  '**/dto/**',
  '**/*.dto.ts',
  '**/*.decorator.ts',
  '**/*.decorators.ts',
  '**/*.guard.ts',
  '**/*.middleware.ts',
];

/**
 * The other files a feature offers, by name: types and pure functions that are part of its contract
 * with the others (the settings a tenant stores, the principal, the program rules, …).
 */
export const CONTRACTS = {
  access: [
    'principal.ts',
    'rate-limits.ts',
    'credentials.ts',
    'route-access.ts',
    'embed-origin.ts',
  ],
  // The ledger port the payouts feature provides (bonuses own it, so they never import payouts).
  bonuses: ['bonus-ledger.ts'],
  // The pay rules the register path and the backtest share (docs/money.md §2).
  conversions: ['cascade.ts', 'phases.ts'],
  fraud: ['risk-signal.ts'],
  leads: ['lead-transitions.ts'],
  // The groups port the groups feature provides (members own it, so they never import groups).
  members: ['signed-ref.ts', 'group-directory.ts'],
  outbox: ['event-types.ts'],
  // The payout details form the partner portal shows on its Payouts page (a view of its own).
  payouts: ['payout-details/payout-details.form.tsx'],
  tenants: [
    'program.ts',
    'tenant-lookups.ts',
    'link-templates.ts',
    'fraud-settings.ts',
    'payout-settings.ts',
    'mail-settings.ts',
  ],
  widget: ['widget-asset.ts'],
};

const feature = (name) => ({ element: { type: 'feature', captured: { feature: name } } });

export const boundariesConfig = {
  files: ['src/**/*.{ts,tsx}'],
  plugins: { boundaries },
  settings: {
    'boundaries/elements': [
      // main.ts, app.module.ts, app.setup.ts, cli.ts: they put the features together.
      { type: 'app', pattern: 'src/*.{ts,tsx}', mode: 'file' },
      // The list of every entity (TypeORM loads one set): the one shared file that names features.
      { type: 'entity-registry', pattern: 'src/database/entities.ts', mode: 'file' },
      { type: 'shared', pattern: `src/{${SHARED_FOLDERS.join(',')}}`, capture: ['folder'] },
      // @(…): a pattern of one folder that still captures its name for the message.
      { type: 'frame', pattern: `src/@(${FRAME_FOLDER})`, capture: ['folder'] },
      { type: 'feature', pattern: 'src/*', capture: ['feature'] },
    ],
    'boundaries/dependency-nodes': ['import', 'export', 'dynamic-import', 'require'],
    // Without a resolver that knows .ts, no import resolves to an element and nothing is checked.
    'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js', '.json'] } },
    'boundaries/legacy-warnings': false,
  },
  rules: {
    'boundaries/dependencies': [
      'error',
      {
        default: 'disallow',
        message:
          '{{from.type}} {{from.captured.feature}}{{from.captured.folder}} may not import {{to.type}} {{to.captured.feature}}{{to.captured.folder}} file {{to.internalPath}} (docs/architecture.md, "Module boundaries")',
        policies: [
          { from: { element: { type: 'app' } }, allow: { to: { element: { type: '*' } } } },
          {
            from: { element: { type: 'entity-registry' } },
            allow: { to: { element: { type: 'feature', fileInternalPath: '**/*.entity.ts' } } },
          },
          {
            from: { element: { type: 'shared' } },
            allow: { to: { element: { types: ['shared', 'entity-registry'] } } },
          },
          {
            from: { element: { type: 'frame' } },
            allow: { to: { element: { types: ['shared', 'frame'] } } },
          },
          {
            from: { element: { type: 'feature' } },
            allow: [
              { to: { element: { types: ['shared', 'frame'] } } },
              { dependency: { relationship: { to: 'internal' } } },
              { to: { element: { type: 'feature', fileInternalPath: PUBLIC_FILES } } },
              ...Object.entries(CONTRACTS).map(([name, files]) => ({
                to: { element: { ...feature(name).element, fileInternalPath: files } },
              })),
            ],
          },
        ],
      },
    ],
  },
};
