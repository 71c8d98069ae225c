import { resolve } from 'node:path';
import { type FeatureGraph, featureGraph, findCycles } from './feature-graph';

/**
 * No import between features closes a cycle (docs/architecture.md, "Module boundaries"): the
 * features are layered, and a lower one that must call a higher one owns a port the higher one
 * provides.
 */
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
              file: 'src/members/members.service.ts',
              specifier: '../deeplinks/deeplinks.service',
            },
          ],
        ],
      ]),
    );
    const cycles = findCycles(withCycle);
    expect(cycles).toHaveLength(1);
    expect(cycles[0]).toMatch(/^deeplinks → members → deeplinks\n/);
  });

  it('has no cycle between the features of src/', () => {
    expect(findCycles(real)).toEqual([]);
  });
});
