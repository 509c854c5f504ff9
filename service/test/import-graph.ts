/**
 * The import graph of a source tree, read with TypeScript's own parser: which file loads which
 * when the code runs. Static imports, re-exports, side-effect imports and dynamic `import()` are
 * edges; `import type` and `export type` are not (they are erased before the code runs). An
 * `import { type X }` is an edge: with `verbatimModuleSyntax` the statement stays and loads the
 * file. Only relative specifiers are followed; packages are not part of the graph.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** File → the files it loads; paths relative to the tree's root, with `/` separators. */
export type ImportGraph = Map<string, Set<string>>;

export interface Source {
  file: string;
  text: string;
}

/** The relative specifiers a file loads at run time, in source order. */
export function runtimeImports(file: string, text: string): string[] {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      if (!node.importClause?.isTypeOnly && ts.isStringLiteral(node.moduleSpecifier))
        found.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node)) {
      if (!node.isTypeOnly && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
        found.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((specifier) => specifier.startsWith('./') || specifier.startsWith('../'));
}

/** The graph of the given sources; an import of a file outside them is left out. */
export function importGraph(sources: Source[]): ImportGraph {
  const files = new Set(sources.map((source) => source.file));
  const graph: ImportGraph = new Map();
  for (const { file, text } of sources) {
    const targets = new Set<string>();
    for (const specifier of runtimeImports(file, text)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
      if (files.has(target)) targets.add(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The `.ts`/`.tsx` files under a root, tests left out. */
export function sourceTree(root: string): Source[] {
  return (fs.readdirSync(root, { recursive: true }) as string[])
    .filter((name) => /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name))
    .map((name) => ({
      file: name.split(path.sep).join('/'),
      text: fs.readFileSync(path.join(root, name), 'utf8'),
    }))
    .sort((a, b) => a.file.localeCompare(b.file));
}

/** The graph between units (modules, folders): an edge wherever one unit's file loads another's. */
export function unitGraph(graph: ImportGraph, unitOf: (file: string) => string): ImportGraph {
  const units: ImportGraph = new Map();
  for (const [file, targets] of graph) {
    const from = unitOf(file);
    const edges = units.get(from) ?? new Set<string>();
    units.set(from, edges);
    for (const target of targets) if (unitOf(target) !== from) edges.add(unitOf(target));
  }
  return units;
}

/** The graph without the listed edges (`from → to`). */
export function withoutEdges(graph: ImportGraph, edges: Iterable<string>): ImportGraph {
  const left = new Set(edges);
  return new Map(
    [...graph].map(([from, targets]) => [
      from,
      new Set([...targets].filter((to) => !left.has(`${from} → ${to}`))),
    ]),
  );
}

/** Tarjan's strongly connected components of more than one node (or a node loading itself). */
function tangles(graph: ImportGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) as number, low.get(target) as number));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) as number, index.get(target) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.has(node)) found.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

/** The shortest way back to `start` inside its component, as a path `start → … → start`. */
function loopThrough(graph: ImportGraph, start: string, members: Set<string>): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift() as string;
    for (const target of [...(graph.get(node) ?? [])].sort()) {
      if (!members.has(target)) continue;
      if (target === start) {
        const loop = [start];
        for (let at = node; at !== start; at = cameFrom.get(at) as string) loop.splice(1, 0, at);
        return [...loop, start];
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, node);
        queue.push(target);
      }
    }
  }
  return [start, start];
}

/**
 * Each tangle of the graph as one message naming a loop through it (`a → b → a`) and, when more
 * files are caught in it, all of them. Empty when the graph has no cycle.
 */
export function cycles(graph: ImportGraph): string[] {
  return tangles(graph).map((component) => {
    const loop = loopThrough(graph, component[0] as string, new Set(component));
    const rest =
      component.length > loop.length - 1 ? ` (all ${component.length}: ${component.join(', ')})` : '';
    return `cycle: ${loop.join(' → ')}${rest}`;
  });
}
