import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import * as ts from 'typescript';

/** The folders under src/ that are infrastructure, not features (eslint.boundaries.mjs). */
export const SHARED_FOLDERS = new Set(['common', 'config', 'database', 'redis']);

/** One import from a file of one feature into another feature. */
export interface FeatureImport {
  from: string;
  to: string;
  /** The importing file, relative to the repository. */
  file: string;
  specifier: string;
}

/** Feature → the features it imports, each with the imports that make the edge. */
export type FeatureGraph = Map<string, Map<string, FeatureImport[]>>;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !/\.spec\.tsx?$/.test(name) && !name.endsWith('.d.ts')
      ? [path]
      : [];
  });
}

/**
 * The feature-level import graph of `src/`: a node per feature folder (every folder but the
 * shared ones), an edge where a non-test file of one feature imports a file of another, types
 * included (`import type` is a dependency too). Import specifiers are read with the TypeScript
 * compiler's pre-processor (imports, re-exports, `require`, `import()`).
 */
export function featureGraph(root: string): FeatureGraph {
  const src = resolve(root, 'src');
  const graph: FeatureGraph = new Map();
  const featureOf = (path: string): string | null => {
    const parts = relative(src, path).split(sep);
    if (parts.length < 2 || parts[0] === '..' || SHARED_FOLDERS.has(parts[0])) return null;
    return parts[0];
  };
  for (const dir of readdirSync(src)) {
    if (SHARED_FOLDERS.has(dir) || !statSync(join(src, dir)).isDirectory()) continue;
    graph.set(dir, graph.get(dir) ?? new Map());
    for (const file of sourceFiles(join(src, dir))) {
      const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      for (const { fileName: specifier } of info.importedFiles) {
        if (!specifier.startsWith('.')) continue;
        const to = featureOf(resolve(dirname(file), specifier));
        if (!to || to === dir) continue;
        const edges = graph.get(dir)!;
        const list = edges.get(to) ?? [];
        list.push({ from: dir, to, file: relative(root, file), specifier });
        edges.set(to, list);
      }
    }
  }
  return graph;
}

/**
 * The cycles of the graph, one per strongly connected component with more than one feature (its
 * shortest), each named as a path that comes back to its start (`a → b → c → a`) with a file that
 * makes each step. Tarjan's algorithm for the components, breadth-first search for the cycles.
 */
export function findCycles(graph: FeatureGraph): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) components.push(component);
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);

  return components.map((component) => {
    const members = new Set(component);
    const successors = (v: string) =>
      [...(graph.get(v)?.keys() ?? [])].filter((w) => members.has(w)).sort();
    // The shortest cycle through start: breadth-first until an edge leads back to it.
    const cycleThrough = (start: string): string[] => {
      const parent = new Map<string, string | null>([[start, null]]);
      const queue = [start];
      let last: string | undefined;
      while (queue.length && last === undefined) {
        const v = queue.shift()!;
        for (const w of successors(v)) {
          if (w === start) {
            last = v;
            break;
          }
          if (!parent.has(w)) {
            parent.set(w, v);
            queue.push(w);
          }
        }
      }
      const path: string[] = [start];
      for (let v: string | null = last!; v !== null; v = parent.get(v)!) path.unshift(v);
      return path;
    };
    // The component's shortest cycle (the first by name among equals) is the one named.
    const path = [...members]
      .sort()
      .map(cycleThrough)
      .reduce((best, p) => (p.length < best.length ? p : best));
    const steps = path.slice(1).map((to, i) => {
      const from = path[i];
      const via = graph.get(from)!.get(to)![0];
      return `  ${from} → ${to} (${via.file} imports ${via.specifier})`;
    });
    return `${path.join(' → ')}\n${steps.join('\n')}`;
  });
}
