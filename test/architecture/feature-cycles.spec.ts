import { resolve } from 'node:path';
import { type FeatureGraph, featureGraph, findCycles, withoutEdges } from './feature-graph';

/**
 * The imports between features that still close a cycle (docs/architecture.md, "Module
 * boundaries"), each from the lower feature to the higher one. The list only shrinks: an edge
 * that no longer exists must leave it, and any other cycle fails.
 */
const KNOWN_CYCLE_EDGES: [string, string, string][] = [
  [
    'tenants',
    'access',
    "tenants' routes use access's decorators and Actor; access looks tenants up",
  ],
  [
    'tenants',
    'audit',
    "tenants records key and token changes in the audit log; audit's entry entity and route name " +
      'TenantEntity, and audit types its actor with access/principal.ts',
  ],
  ['bonuses', 'payouts', 'bonuses write the ledger (payouts/ledger), and payouts pay bonuses'],
  [
    'embed',
    'payouts',
    "the embed reads take balances from payouts' ledger; payouts' embed route builds on embed",
  ],
];

const graph = (edges: Record<string, string[]>): FeatureGraph =>
  new Map(
    Object.entries(edges).map(([from, targets]) => [
      from,
      new Map(
        targets.map((to) => [
          to,
          [{ from, to, file: `src/${from}/x.ts`, specifier: `../${to}/x.service` }],
        ]),
      ),
    ]),
  );

describe('feature cycles', () => {
  const real = featureGraph(resolve(__dirname, '../..'));

  it('names a cycle with the file behind each step', () => {
    const cycles = findCycles(graph({ a: ['b'], b: ['c'], c: ['a', 'd'], d: [] }));
    expect(cycles).toEqual([
      'a → b → c → a\n' +
        '  a → b (src/a/x.ts imports ../b/x.service)\n' +
        '  b → c (src/b/x.ts imports ../c/x.service)\n' +
        '  c → a (src/c/x.ts imports ../a/x.service)',
    ]);
    expect(findCycles(graph({ a: ['b'], b: ['c'], c: [] }))).toEqual([]);
  });

  it('finds a cycle that an import between two features would close', () => {
    const members = real.get('members')!;
    const withCycle: FeatureGraph = new Map(real);
    withCycle.set(
      'members',
      new Map([
        ...members,
        [
          'deeplinks',
          [
            {
              from: 'members',
              to: 'deeplinks',
              file: 'src/members/users.service.ts',
              specifier: '../deeplinks/deeplinks.service',
            },
          ],
        ],
      ]),
    );
    const known = KNOWN_CYCLE_EDGES.map(([from, to]): [string, string] => [from, to]);
    const cycles = findCycles(withoutEdges(withCycle, known));
    expect(cycles).toHaveLength(1);
    expect(cycles[0]).toMatch(/^deeplinks → members → deeplinks\n/);
  });

  it('has no cycle between the features of src/ but the known ones', () => {
    const known = KNOWN_CYCLE_EDGES.map(([from, to]): [string, string] => [from, to]);
    expect(findCycles(withoutEdges(real, known))).toEqual([]);
  });

  it('lists only known cycle edges that still exist', () => {
    const gone = KNOWN_CYCLE_EDGES.filter(([from, to]) => !real.get(from)?.has(to));
    expect(gone.map(([from, to]) => `${from} → ${to} is gone: take it off the list`)).toEqual([]);
  });
});
