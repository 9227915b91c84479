// Enforces the layering of src/ (docs/architecture.md): imports only go down the
// list of layers (folders side by side on one level do not import each
// other), the pure layers never touch I/O, the real time or a
// package, a runtime never imports another, a private `_x.ts` is imported
// only from within its own folder (its subfolders included, as Go's
// `internal/`), and no modules import each other in a loop.

import assert from "node:assert/strict";

// From the bottom up; the folders of one level sit side by side.
const LAYERS: readonly (readonly string[])[] = [
  ["time"],
  ["windows"],
  ["async"],
  ["runtime"],
  ["kv"],
  ["actors", "connectors"],
  ["api"],
  ["observe"],
  ["http"],
  ["cli"],
];
const PURE = new Set(["time", "windows", "async", "runtime"]);
const FORBIDDEN_IN_PURE = [
  /\bDeno\./,
  /\bDate\.now\(/,
  /\bsetTimeout\(/,
  /\bsetInterval\(/,
  /\bperformance\.now\(/,
];
// The one place in the pure layers allowed to read the system time.
const CLOCK_FILE = "src/time/clock.ts";
// The runtimes: folders that must not import one another.
const RUNTIMES = ["src/actors/local/", "src/actors/kv/"];

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* sourceFiles(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

function layerOf(path: string): string | null {
  const match = /^src\/([^/]+)\//.exec(path);
  return match && levelOf(match[1]) >= 0 ? match[1] : null;
}

function levelOf(layer: string): number {
  return LAYERS.findIndex((level) => level.includes(layer));
}

/** Whether a file in layer `from` may import from layer `to`. */
function mayImport(from: string, to: string): boolean {
  return from === to || levelOf(to) < levelOf(from);
}

function folderOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/") + 1);
}

function isPrivate(path: string): boolean {
  return path.slice(path.lastIndexOf("/") + 1).startsWith("_");
}

function resolve(from: string, specifier: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  return parts.join("/");
}

function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

/** Import specifiers with comments removed, so JSDoc examples do not count. */
function importsOf(text: string): string[] {
  return [
    ...withoutComments(text).matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g),
  ].map((m) => m[1]);
}

/**
 * Specifiers of imports that are evaluated (not `import type` and not
 * `export type`): the edges of a loop that matters when modules load.
 */
function valueImportsOf(text: string): string[] {
  const code = withoutComments(text);
  const found: string[] = [];
  for (
    const m of code.matchAll(
      /(?:^|\n)\s*(import|export)\s+(type\s+)?([^"]*?)from\s*"([^"]+)"|(?:^|\n)\s*import\s*"([^"]+)"/g,
    )
  ) {
    if (m[5] !== undefined) found.push(m[5]);
    else if (m[2] === undefined) found.push(m[4]);
  }
  return found;
}

/** Every set of two or more modules that import each other in a loop. */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  // Tarjan's strongly connected components.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!graph.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

async function findViolations(): Promise<string[]> {
  const violations: string[] = [];
  const graph = new Map<string, string[]>();
  const files = ["main.ts"];
  for await (const path of sourceFiles("src")) files.push(path);
  for (const path of files) {
    const layer = layerOf(path);
    const text = await Deno.readTextFile(path);
    const targets: string[] = [];
    for (const specifier of importsOf(text)) {
      if (!specifier.startsWith(".")) {
        if (layer !== null && PURE.has(layer)) {
          violations.push(
            `${path} imports a package in a pure layer: ${specifier}`,
          );
        }
        continue;
      }
      const target = resolve(path, specifier);
      const targetLayer = layerOf(target);
      if (
        layer !== null && targetLayer !== null &&
        !mayImport(layer, targetLayer)
      ) {
        violations.push(
          `${path} imports upward or sideways from ${targetLayer}/: ${specifier}`,
        );
      }
      if (isPrivate(target) && !path.startsWith(folderOf(target))) {
        violations.push(
          `${path} imports a file private to ${folderOf(target)}: ${specifier}`,
        );
      }
      for (const runtime of RUNTIMES) {
        if (
          !path.startsWith(runtime) && target.startsWith(runtime) &&
          RUNTIMES.some((other) => path.startsWith(other))
        ) {
          violations.push(`${path} imports another runtime: ${specifier}`);
        }
      }
    }
    for (const specifier of valueImportsOf(text)) {
      if (specifier.startsWith(".")) targets.push(resolve(path, specifier));
    }
    graph.set(path, targets);
    if (layer !== null && PURE.has(layer) && path !== CLOCK_FILE) {
      const code = text.replace(/\/\*[\s\S]*?\*\//g, "");
      for (const pattern of FORBIDDEN_IN_PURE) {
        if (pattern.test(code)) {
          violations.push(`${path} uses ${pattern.source} in a pure layer`);
        }
      }
    }
  }
  for (const cycle of cyclesOf(graph)) {
    violations.push(`modules import each other in a loop: ${cycle.join(", ")}`);
  }
  return violations;
}

Deno.test("src/ imports only go down the layers (not sideways), stay out of other folders' private files and other runtimes, form no loop, and pure layers do no I/O", async () => {
  assert.deepEqual(await findViolations(), []);
});

Deno.test("the layer check resolves relative imports and ignores JSDoc examples", () => {
  assert.equal(
    resolve("src/time/valve.ts", "../windows/tumbling.ts"),
    "src/windows/tumbling.ts",
  );
  assert.equal(layerOf(resolve("src/http/app.ts", "./ingest.ts")), "http");
  assert.equal(mayImport("connectors", "kv"), true);
  assert.equal(mayImport("connectors", "connectors"), true);
  assert.equal(mayImport("connectors", "actors"), false);
  assert.equal(mayImport("actors", "connectors"), false);
  assert.equal(mayImport("kv", "actors"), false);
  assert.deepEqual(
    importsOf(
      '/** import { x } from "../http/app.ts"; */\nimport { y } from "./y.ts";',
    ),
    ["./y.ts"],
  );
});

Deno.test("the layer check tells private files, type-only imports and loops", () => {
  assert.equal(isPrivate("src/actors/_codec.ts"), true);
  assert.equal(isPrivate("src/actors/codec.ts"), false);
  assert.equal(folderOf("src/actors/kv/lease.ts"), "src/actors/kv/");
  assert.deepEqual(
    valueImportsOf(
      'import type { A } from "./a.ts";\nimport { B } from "./b.ts";\nexport { C } from "./c.ts";\nexport type { D } from "./d.ts";\nimport "./e.ts";',
    ),
    ["./b.ts", "./c.ts", "./e.ts"],
  );
  assert.deepEqual(
    cyclesOf(
      new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]]),
    ),
    [["a", "b", "c"]],
  );
  assert.deepEqual(cyclesOf(new Map([["a", ["b"]], ["b", []]])), []);
});
