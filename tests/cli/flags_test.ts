import assert from "node:assert/strict";
import {
  type Command,
  formatHelp,
  parseFlags,
  parseInteger,
  refuseOtherFlags,
} from "../../src/cli/flags.ts";
import { parseRestore } from "../../src/cli/restore_flag.ts";

const COMMAND: Command = {
  name: "serve",
  usage: "weir serve [flags]",
  summary: "Serves.",
  flags: [
    { name: "port", value: "<n>", default: "8000", about: "port to serve on" },
    { name: "store", value: "<path>", about: "the KV file" },
    { name: "quiet", about: "prints less" },
  ],
  examples: ["weir serve --port 0"],
};

Deno.test("parseFlags() gives each flag's value, else its default, the positionals and the flags given in order", () => {
  const parsed = parseFlags(
    ["job.ts", "--quiet", "--port", "0", "-h"],
    COMMAND.flags,
  );
  assert.deepEqual(parsed.positionals, ["job.ts"]);
  assert.deepEqual(parsed.positionalIndexes, [0]);
  assert.equal(parsed.values.port, "0");
  assert.equal(parsed.values.store, undefined);
  assert.equal(parsed.values.quiet, "true");
  assert.deepEqual(parsed.given, ["quiet", "port", "help"]);
  assert.equal(parseFlags([], COMMAND.flags).values.port, "8000");
});

Deno.test("parseFlags() refuses an unknown flag with a RangeError naming it and what takes it", () => {
  assert.throws(() => parseFlags(["--prot", "1"], COMMAND.flags), {
    name: "RangeError",
    message:
      "Cannot start as '--prot' is not a flag of weir's command line: see --help",
  });
  assert.throws(() => parseFlags(["-x"], COMMAND.flags, "the demo example"), {
    name: "RangeError",
    message:
      "Cannot start as '-x' is not a flag of the demo example: see --help",
  });
});

Deno.test("parseFlags() refuses a flag that takes a value given none, naming the flag and its values", () => {
  for (const args of [["--port"], ["--port", "--quiet"], ["--port", "-h"]]) {
    assert.throws(() => parseFlags(args, COMMAND.flags), {
      name: "RangeError",
      message: "Cannot start as '--port' needs a value (<n>)",
    });
  }
  const restore = [{
    name: "restore",
    value: "latest|none|<id>",
    about: "",
  }];
  assert.throws(() => parseFlags(["--restore"], restore), {
    name: "RangeError",
    message: "Cannot start as '--restore' needs a value (latest|none|<id>)",
  });
  assert.throws(() => parseFlags(["--restore", "--"], restore), {
    name: "RangeError",
    message: "Cannot start as '--restore' needs a value (latest|none|<id>)",
  });
});

Deno.test("parseFlags() takes a negative number as a flag's value, for the flag's own check to refuse", () => {
  const parsed = parseFlags(["job.ts", "--port", "-1", "x"], COMMAND.flags);
  assert.equal(parsed.values.port, "-1");
  assert.deepEqual(parsed.positionals, ["job.ts", "x"]);
  assert.deepEqual(parsed.positionalIndexes, [0, 3]);
  assert.equal(
    parseFlags(["--port", "-0.5"], COMMAND.flags).values.port,
    "-0.5",
  );
  assert.equal(parseFlags(["--port=-1"], COMMAND.flags).values.port, "-1");
  assert.throws(
    () =>
      parseInteger(
        "port",
        parseFlags(["--port", "-1"], COMMAND.flags).values.port!,
        {
          min: 0,
          rule: "a port number",
          action: "serve",
        },
      ),
    {
      name: "RangeError",
      message:
        "Cannot serve as '--port' must be a port number: current value is -1",
    },
  );
  assert.throws(() => parseRestore("-1"), {
    name: "RangeError",
    message:
      "Cannot start as '--restore' must be latest, none or a checkpoint id: current value is -1",
  });
});

Deno.test("parseFlags() refuses a switch given a value, naming it", () => {
  assert.throws(() => parseFlags(["--quiet=yes"], COMMAND.flags), {
    name: "RangeError",
    message: "Cannot start as '--quiet' takes no value: current value is yes",
  });
  assert.throws(() => parseFlags(["--help=1"], COMMAND.flags), {
    name: "RangeError",
    message: "Cannot start as '--help' takes no value: current value is 1",
  });
});

Deno.test("parseFlags() reads every argument after -- as a positional, keeping its index", () => {
  const parsed = parseFlags(["--port", "1", "--", "--quiet"], COMMAND.flags);
  assert.deepEqual(parsed.positionals, ["--quiet"]);
  assert.deepEqual(parsed.positionalIndexes, [3]);
  assert.deepEqual(parsed.given, ["port"]);
});

Deno.test("refuseOtherFlags() refuses a flag given that the command does not take, naming it and the command", () => {
  const flags = [...COMMAND.flags, {
    name: "lease-ms",
    value: "<ms>",
    about: "",
  }];
  refuseOtherFlags(parseFlags(["--port", "1", "--help"], flags), COMMAND);
  refuseOtherFlags(parseFlags(["--lease-ms", "1"], flags), COMMAND, [
    "lease-ms",
  ]);
  assert.throws(
    () => refuseOtherFlags(parseFlags(["--lease-ms", "1"], flags), COMMAND),
    {
      name: "RangeError",
      message:
        "Cannot start as '--lease-ms' does not apply to the serve command: see its --help",
    },
  );
});

Deno.test("formatHelp() shows the usage, the summary, every flag with its default, --help, and the examples", () => {
  const help = formatHelp(COMMAND);
  assert.equal(
    help,
    [
      "Usage: weir serve [flags]",
      "",
      "Serves.",
      "",
      "Flags:",
      "  --port <n>      port to serve on (default: 8000)",
      "  --store <path>  the KV file",
      "  --quiet         prints less",
      "  -h, --help      prints this help",
      "",
      "Examples:",
      "  weir serve --port 0",
    ].join("\n"),
  );
});

Deno.test("parseInteger() reads an integer in range, and refuses another value with the rule and the action", () => {
  const rule = { min: 1, max: 10, rule: "from 1 to 10" };
  assert.equal(parseInteger("n", "10", rule), 10);
  assert.throws(() => parseInteger("n", "11", rule), {
    name: "RangeError",
    message: "Cannot start as '--n' must be from 1 to 10: current value is 11",
  });
  assert.throws(() => parseInteger("n", "", rule), {
    name: "RangeError",
    message: "Cannot start as '--n' must be from 1 to 10: current value is ",
  });
  assert.throws(() => parseInteger("port", "x", { ...rule, action: "serve" }), {
    message:
      "Cannot serve as '--port' must be from 1 to 10: current value is x",
  });
});
