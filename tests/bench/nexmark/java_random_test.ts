import assert from "node:assert/strict";
import { JavaRandom } from "../../../bench/nexmark/java_random.ts";

Deno.test("JavaRandom reproduces the commonly cited java.util.Random values", () => {
  assert.equal(new JavaRandom(42).nextInt(), -1170105035);
  assert.equal(new JavaRandom(0).nextInt(), -1155484576);
  assert.equal(new JavaRandom(42).nextInt(10), 0);
  assert.equal(new JavaRandom(42).nextDouble(), 0.7275636800328681);
  assert.equal(new JavaRandom(0).nextDouble(), 0.730967787376657);
});

// Printed by OpenJDK 17 for `new Random(seed)` and this call sequence:
// 3 x nextInt(), nextInt(2^1, 2^10, 2^19, 2^28), 4 x nextInt(13),
// 6 x nextInt(2^30 + 1) (about half of next(31) is rejected), 2 x nextDouble().
const JAVA_17: [number, number[], number[]][] = [
  [
    42,
    [
      -1170105035,
      234785527,
      -1360544799,
      0,
      316,
      493917,
      74377688,
      3,
      3,
      2,
      0,
      969067502,
      791955276,
      819572292,
      592164476,
      995688456,
      326327863,
    ],
    [0.43649097442328655, 0.7499061812554475],
  ],
  [
    -1,
    [
      1155099827,
      1887904451,
      52699159,
      1,
      677,
      314989,
      111786809,
      12,
      9,
      11,
      1,
      665220512,
      121954317,
      149520196,
      176890342,
      754206257,
      975495143,
    ],
    [0.6217126300259462, 0.23263624314841125],
  ],
  [
    1099511627783,
    [
      672077721,
      209138712,
      1959367770,
      0,
      600,
      242882,
      246103876,
      10,
      12,
      8,
      0,
      309371856,
      752304111,
      1061811167,
      744841842,
      914215527,
      278950194,
    ],
    [0.3386729218705158, 0.12097339167817],
  ],
  [
    5000000000,
    [
      -1025766893,
      440299379,
      -476891649,
      0,
      588,
      414439,
      73890707,
      9,
      9,
      1,
      8,
      493713846,
      780647006,
      334962278,
      945763803,
      609338792,
      320825971,
    ],
    [0.10182329038998172, 0.48058514207406944],
  ],
];

function drawSequence(random: JavaRandom): [number[], number[]] {
  const ints: number[] = [];
  for (let i = 0; i < 3; i++) ints.push(random.nextInt());
  for (let i = 0; i < 4; i++) ints.push(random.nextInt(2 ** (i * 9 + 1)));
  for (let i = 0; i < 4; i++) ints.push(random.nextInt(13));
  for (let i = 0; i < 6; i++) ints.push(random.nextInt(2 ** 30 + 1));
  return [ints, [random.nextDouble(), random.nextDouble()]];
}

Deno.test("JavaRandom matches OpenJDK 17 on nextInt(), both nextInt(bound) paths and nextDouble() for negative and 48-bit seeds", () => {
  for (const [seed, ints, doubles] of JAVA_17) {
    assert.deepEqual(
      drawSequence(new JavaRandom(seed)),
      [ints, doubles],
      `seed ${seed}`,
    );
  }
});

Deno.test("JavaRandom.setSeed() restarts the sequence as new Random(seed) does", () => {
  const reused = new JavaRandom(7);
  reused.nextDouble();
  for (const [seed, ints, doubles] of JAVA_17) {
    reused.setSeed(seed);
    assert.deepEqual(drawSequence(reused), [ints, doubles], `seed ${seed}`);
  }
});

Deno.test("JavaRandom.nextInt(bound) stays in [0, bound) for small bounds", () => {
  const random = new JavaRandom(1);
  for (const bound of [1, 2, 3, 7, 13, 26, 64, 10_000]) {
    for (let i = 0; i < 1_000; i++) {
      const value = random.nextInt(bound);
      assert.ok(
        Number.isInteger(value) && value >= 0 && value < bound,
        `${value}`,
      );
    }
  }
});

Deno.test("JavaRandom rejects a bound or seed out of range, naming it", () => {
  const random = new JavaRandom();
  for (const bound of [0, -1, 1.5, 2 ** 31, NaN]) {
    assert.throws(() => random.nextInt(bound), {
      name: "RangeError",
      message: /'bound'.*current value is/,
    });
  }
  for (const seed of [0.5, 2 ** 53, NaN]) {
    assert.throws(() => random.setSeed(seed), {
      name: "RangeError",
      message: /'seed'/,
    });
  }
});
