// The house measured: which top-level folder (room) imports which, on which floor each room stands
// (floors.json), the arrows that run up, and the circles between files. test/house.test.ts holds
// the rules; `npx tsx test/support/house.ts [folder]` prints the figures for any checkout (the
// architecture step measured the tree before and after with it).
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';

export interface Arrow {
  from: string;
  to: string;
  /** Every import behind it is `import type` (erased at run time). */
  typeOnly: boolean;
  /** One file import behind it, for the error message. */
  example: string;
}

export interface House {
  rooms: string[];
  arrows: Arrow[];
  /** Longest chain of value arrows, in rooms (undefined when the rooms' graph has a circle). */
  floors?: number;
  /** Value arrows (or type-only ones floors.json does not allow) from a lower floor to a higher one. */
  upward: Arrow[];
  /** Files that import each other, directly or round a loop. */
  circles: string[][];
}

interface Floors {
  floors: string[][];
  typeOnlyUp: [string, string][];
}

const SKIP = new Set(['node_modules', 'dist', '.git', '.planner', 'coverage', 'histories', 'results']);

function sourceFiles(root: string, dir = root): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name) || name.startsWith('.')) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(root, path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') && dir !== root ? [relative(root, path)] : [];
  });
}

/** Relative module specifiers of one file, each marked type-only or not. */
function importsOf(root: string, file: string): { spec: string; typeOnly: boolean }[] {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.ES2022, true);
  const found: { spec: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      let typeOnly = ts.isImportDeclaration(node) ? !!node.importClause?.isTypeOnly : node.isTypeOnly;
      const named = ts.isImportDeclaration(node) ? node.importClause?.namedBindings : node.exportClause;
      if (!typeOnly && named && (ts.isNamedImports(named) || ts.isNamedExports(named)) && named.elements.length > 0) {
        typeOnly = named.elements.every((e) => e.isTypeOnly) && !(ts.isImportDeclaration(node) && node.importClause?.name);
      }
      found.push({ spec: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isCallExpression(node) && node.arguments.length === 1 && ts.isStringLiteral(node.arguments[0]!)) {
      const callee = node.expression;
      const isRequire = ts.isIdentifier(callee) && callee.text === 'require';
      const isResolve = ts.isPropertyAccessExpression(callee) && callee.getText() === 'require.resolve';
      if (isRequire || isResolve || callee.kind === ts.SyntaxKind.ImportKeyword) found.push({ spec: (node.arguments[0] as ts.StringLiteral).text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((i) => i.spec.startsWith('.'));
}

function resolveFile(root: string, from: string, spec: string): string | undefined {
  const base = normalize(join(dirname(from), spec));
  return [`${base}.ts`, join(base, 'index.ts'), base].find((f) => existsSync(join(root, f)) && statSync(join(root, f)).isFile());
}

const roomOf = (file: string): string => file.split('/')[0]!;

export function readFloors(root: string): Floors {
  return JSON.parse(readFileSync(join(root, 'floors.json'), 'utf8')) as Floors;
}

export function measureHouse(root: string, floors?: Floors): House {
  const files = sourceFiles(root);
  const fileEdges = new Map<string, Set<string>>();
  const arrows = new Map<string, Arrow>();
  for (const file of files) {
    const targets = new Set<string>();
    for (const { spec, typeOnly } of importsOf(root, file)) {
      const target = resolveFile(root, file, spec);
      if (!target) continue;
      targets.add(target);
      const [from, to] = [roomOf(file), roomOf(target)];
      if (from === to) continue;
      const key = `${from}>${to}`;
      const arrow = arrows.get(key) ?? { from, to, typeOnly: true, example: `${file} → ${target}` };
      if (!typeOnly && arrow.typeOnly) Object.assign(arrow, { typeOnly: false, example: `${file} → ${target}` });
      arrows.set(key, arrow);
    }
    fileEdges.set(file, targets);
  }
  const rooms = [...new Set(files.map(roomOf))].sort();
  const valueArrows = [...arrows.values()].filter((a) => !a.typeOnly);
  const floorOf = new Map(floors?.floors.flatMap((rs, i) => rs.map((r) => [r, i] as const)) ?? []);
  const top = (floors?.floors.length ?? 0) - 1;
  const upward = floors
    ? [...arrows.values()].filter((a) => {
        const [f, t] = [floorOf.get(a.from), floorOf.get(a.to)];
        if (f === undefined || t === undefined) return true; // a room floors.json does not place
        if (t < f || (t === f && f === top)) return false;
        return !(a.typeOnly && floors.typeOnlyUp.some(([x, y]) => x === a.from && y === a.to));
      })
    : [];
  return { rooms, arrows: [...arrows.values()], floors: longestChain(rooms, valueArrows), upward, circles: circlesOf(fileEdges) };
}

/** Rooms on the longest path of value arrows: the number of floors the house needs as built. */
function longestChain(rooms: string[], arrows: Arrow[]): number | undefined {
  const depth = new Map<string, number>();
  const visiting = new Set<string>();
  const walk = (room: string): number | undefined => {
    if (depth.has(room)) return depth.get(room);
    if (visiting.has(room)) return undefined;
    visiting.add(room);
    let d = 1;
    for (const a of arrows.filter((x) => x.from === room)) {
      const below = walk(a.to);
      if (below === undefined) return undefined;
      d = Math.max(d, below + 1);
    }
    visiting.delete(room);
    depth.set(room, d);
    return d;
  };
  let most = 0;
  for (const room of rooms) {
    const d = walk(room);
    if (d === undefined) return undefined;
    most = Math.max(most, d);
  }
  return most;
}

/** Strongly connected groups of more than one file (Tarjan). */
function circlesOf(edges: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) circles.push(group.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) connect(v);
  return circles;
}

if (require.main === module) {
  const root = process.argv[2] ?? process.cwd();
  const floors = existsSync(join(root, 'floors.json')) ? readFloors(root) : undefined;
  const house = measureHouse(root, floors);
  const typeOnly = house.arrows.filter((a) => a.typeOnly).length;
  console.log(`${house.rooms.length} rooms, ${house.floors ?? 'no order of'} floors, ${house.arrows.length} arrows (${typeOnly} type-only), ${house.circles.length} circles`);
  if (floors) console.log(`${house.upward.length} arrows up: ${house.upward.map((a) => a.example).join('; ') || 'none'}`);
  for (const c of house.circles) console.log(`circle: ${c.join(' ↔ ')}`);
}

/** Files under these folders longer than `maxLines`, with their length. */
export function longFiles(root: string, folders: string[], maxLines: number): string[] {
  return sourceFiles(root)
    .filter((file) => folders.includes(roomOf(file)))
    .map((file) => [file, readFileSync(join(root, file), 'utf8').split('\n').length - 1] as const)
    .filter(([, lines]) => lines > maxLines)
    .map(([file, lines]) => `${file}: ${lines} lines`);
}

/** Functions and methods in these folders whose body is longer than `maxLines`, with their length. */
export function longFunctions(root: string, folders: string[], maxLines: number): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(root).filter((f) => folders.includes(roomOf(f)))) {
    const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.ES2022, true);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body && ts.isBlock(node.body as ts.Node)) {
        const body = node.body as ts.Block;
        const lines = source.getLineAndCharacterOfPosition(body.end).line - source.getLineAndCharacterOfPosition(body.getStart(source)).line - 1;
        const name = (node as ts.FunctionDeclaration).name?.getText(source) ?? '(anonymous)';
        if (lines > maxLines) found.push(`${file}: ${name} ${lines} lines`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}
