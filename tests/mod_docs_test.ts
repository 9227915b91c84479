// Every folder's public face is documented: `deno doc --lint` over each
// `mod.ts` under src/ (found, not listed, so a new folder is covered).
//
// One exemption: deno doc reports hono's own types (`Hono`, `Context`,
// `MiddlewareHandler`) in http's signatures as private, because an npm
// package resolves to a file: module (denoland/deno#27364); re-exporting
// them only moves the report to hono's internals.

import assert from "node:assert/strict";

const HONO_TYPES = /references private type '(Hono|Context|MiddlewareHandler)'/;

async function* modFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* modFiles(path);
    else if (entry.name === "mod.ts") yield path;
  }
}

/** The diagnostics of `deno doc --lint`, one line each: the rule, the message and where. */
function diagnosticsOf(output: string): string[] {
  // deno-lint-ignore no-control-regex
  const text = output.replace(/\x1b\[[0-9;]*m/g, "");
  const found: string[] = [];
  for (
    const match of text.matchAll(/^error\[([^\]]+)\]: (.*)\n\s*--> (\S+)/gm)
  ) {
    found.push(`${match[1]}: ${match[2]} (${match[3]})`);
  }
  return found;
}

Deno.test("deno doc --lint passes on every folder's mod.ts, but for hono's types", async () => {
  const mods: string[] = [];
  for await (const path of modFiles("src")) mods.push(path);
  assert.ok(mods.length >= 10, `found only ${mods.length} mod.ts files`);
  const { stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--lint", ...mods.sort()],
    stdout: "null",
    stderr: "piped",
  }).output();
  const problems = diagnosticsOf(new TextDecoder().decode(stderr))
    .filter((line) => !HONO_TYPES.test(line));
  assert.deepEqual(problems, []);
});

Deno.test("the doc check reads deno doc's diagnostics", () => {
  const output =
    "\x1b[31merror[missing-jsdoc]\x1b[0m: exported symbol is missing JSDoc documentation\n  --> /x/src/a.ts:3:1\n";
  assert.deepEqual(diagnosticsOf(output), [
    "missing-jsdoc: exported symbol is missing JSDoc documentation (/x/src/a.ts:3:1)",
  ]);
});
