// Enforces DESIGN's layering: imports only go down the list of layers, and
// the pure layers never touch I/O or the real time (STYLE rules 1 and 2).

import assert from "node:assert/strict";

const LAYERS = [
  "time",
  "windows",
  "async",
  "runtime",
  "kv",
  "actors",
  "connectors",
  "api",
  "http",
  "cli",
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

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* sourceFiles(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

function layerOf(path: string): string | null {
  const match = /^src\/([^/]+)\//.exec(path);
  return match && LAYERS.includes(match[1]) ? match[1] : null;
}

function resolve(from: string, specifier: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  return parts.join("/");
}

/** Import specifiers with comments removed, so JSDoc examples do not count. */
function importsOf(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(
    /^\s*\/\/.*$/gm,
    "",
  );
  return [...code.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)].map((m) =>
    m[1]
  );
}

async function findViolations(): Promise<string[]> {
  const violations: string[] = [];
  for await (const path of sourceFiles("src")) {
    const layer = layerOf(path);
    if (layer === null) continue;
    const text = await Deno.readTextFile(path);
    for (const specifier of importsOf(text)) {
      if (!specifier.startsWith(".")) continue;
      const target = layerOf(resolve(path, specifier));
      if (target !== null && LAYERS.indexOf(target) > LAYERS.indexOf(layer)) {
        violations.push(`${path} imports upward from ${target}/: ${specifier}`);
      }
    }
    if (PURE.has(layer) && path !== CLOCK_FILE) {
      const code = text.replace(/\/\*[\s\S]*?\*\//g, "");
      for (const pattern of FORBIDDEN_IN_PURE) {
        if (pattern.test(code)) {
          violations.push(`${path} uses ${pattern.source} in a pure layer`);
        }
      }
    }
  }
  return violations;
}

Deno.test("src/ imports only go down the layers and pure layers do no I/O (STYLE rules 1-2)", async () => {
  assert.deepEqual(await findViolations(), []);
});

Deno.test("the layer check resolves relative imports and ignores JSDoc examples", () => {
  assert.equal(
    resolve("src/time/valve.ts", "../windows/tumbling.ts"),
    "src/windows/tumbling.ts",
  );
  assert.equal(layerOf(resolve("src/http/app.ts", "./ingest.ts")), "http");
  assert.deepEqual(
    importsOf(
      '/** import { x } from "../http/app.ts"; */\nimport { y } from "./y.ts";',
    ),
    ["./y.ts"],
  );
});
