import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PROJECT_DIR } from '../helpers/run-cli.ts';

/**
 * The layers of src/, top to bottom, as docs/architecture.md ("Layers") states them. A folder may
 * import from its own layer and from the layers below it, never from a layer above, and the
 * folders never import each other in a circle.
 */
const LAYERS: readonly { readonly name: string; readonly folders: readonly string[] }[] = [
  { name: 'command line', folders: ['cli'] },
  { name: 'use cases', folders: ['prove', 'runner', 'retention', 'check', 'scaffold', 'testing', 'ui'] },
  { name: 'stages', folders: ['post', 'upsert', 'stage', 'quarantine', 'migration'] },
  { name: 'domain', folders: ['pipeline', 'ledger', 'runs', 'source'] },
  { name: 'infrastructure', folders: ['db', 'dialect', 'command-io', 'config', 'destination', 'http', 'child-process', 'heartbeat', 'progress', 'logging', 'telemetry', 'project', 'sandbox', 'stop'] },
  { name: 'foundation', folders: ['column', 'errors', 'outcome', 'text'] },
];

const SRC = path.join(PROJECT_DIR, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The top folder of src/ a file belongs to; undefined for src/index.ts, the public surface. */
function folderOf(file: string): string | undefined {
  const parts = path.relative(SRC, file).split(path.sep);
  return parts.length > 1 ? parts[0] : undefined;
}

/** Every import between two folders of src/, as "from → to (file)"; read by TypeScript's own pre-processor. */
function folderImports(): { from: string; to: string; file: string }[] {
  return sourceFiles(SRC).flatMap((file) => {
    const from = folderOf(file);
    if (from === undefined) return [];
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    return importedFiles
      .filter((imported) => imported.fileName.startsWith('.'))
      .map((imported) => ({ from, to: folderOf(path.resolve(path.dirname(file), imported.fileName)), file: path.relative(PROJECT_DIR, file) }))
      .filter((edge): edge is { from: string; to: string; file: string } => edge.to !== undefined && edge.to !== from);
  });
}

const layerOf = (folder: string): number => LAYERS.findIndex((layer) => layer.folders.includes(folder));

/** The first circle among `edges` (folder → folders), as a path that ends where it starts. */
function findCircle(edges: ReadonlyMap<string, ReadonlySet<string>>): string[] | undefined {
  const done = new Set<string>();
  const visit = (node: string, trail: string[]): string[] | undefined => {
    if (trail.includes(node)) return [...trail.slice(trail.indexOf(node)), node];
    if (done.has(node)) return undefined;
    for (const next of edges.get(node) ?? []) {
      const circle = visit(next, [...trail, node]);
      if (circle) return circle;
    }
    done.add(node);
    return undefined;
  };
  for (const node of edges.keys()) {
    const circle = visit(node, []);
    if (circle) return circle;
  }
  return undefined;
}

describe('layering of src/ (docs/architecture.md, "Layers")', () => {
  const imports = folderImports();

  it('places every folder of src/ in exactly one layer', () => {
    const folders = readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
    expect(folders.filter((folder) => layerOf(folder) < 0)).toEqual([]);
    expect(LAYERS.flatMap((layer) => layer.folders).sort()).toEqual(folders);
  });

  it('never imports from a layer above', () => {
    const upward = imports.filter(({ from, to }) => layerOf(to) < layerOf(from)).map(({ from, to, file }) => `${file}: ${from} → ${to}`);
    expect(upward).toEqual([]);
  });

  it('has no circle between folders', () => {
    const edges = new Map<string, Set<string>>();
    for (const { from, to } of imports) (edges.get(from) ?? edges.set(from, new Set()).get(from)!).add(to);
    expect(findCircle(edges)).toBeUndefined();
  });

  it('keeps every post_ledger statement in src/ledger/', () => {
    const outside = sourceFiles(SRC)
      .filter((file) => folderOf(file) !== 'ledger' && readFileSync(file, 'utf8').includes('post_ledger'))
      .map((file) => path.relative(PROJECT_DIR, file));
    expect(outside).toEqual([]);
  });

  it('states the same layers in docs/architecture.md', () => {
    const doc = readFileSync(path.join(PROJECT_DIR, 'docs', 'architecture.md'), 'utf8');
    for (const [i, layer] of LAYERS.entries()) {
      expect(doc).toContain(`| ${i + 1} | ${layer.name} | ${layer.folders.map((f) => `\`${f}/\``).join(', ')} |`);
    }
  });

  it('would catch an upward import and a circle (the checks can fail)', () => {
    expect(layerOf('post') < layerOf('ledger')).toBe(true);
    expect(findCircle(new Map([['a', new Set(['b'])], ['b', new Set(['c'])], ['c', new Set(['a'])]]))).toEqual(['a', 'b', 'c', 'a']);
    expect(findCircle(new Map([['a', new Set(['b'])], ['b', new Set(['c'])]]))).toBeUndefined();
  });
});
