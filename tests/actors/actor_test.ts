import assert from "node:assert/strict";
import {
  type Actor,
  ActorHost,
  type ActorStorage,
  KvStorage,
  MemoryStorage,
} from "../../src/actors/mod.ts";
import { ManualClock } from "../../src/time/mod.ts";

/** An actor that logs every step, awaiting storage in the middle of each. */
class LoggingActor implements Actor<string> {
  readonly id = "job/log/0";
  readonly log: string[] = [];
  readonly #host: ActorHost<string>;

  constructor(host: ActorHost<string>) {
    this.#host = host;
  }

  async receive(message: string): Promise<void> {
    this.log.push(`start ${message}`);
    const seen = (await this.#host.storage.get<number>(["seen"])) ?? 0;
    await Promise.resolve();
    await this.#host.storage.put(["seen"], seen + 1);
    if (message === "fail") throw new RangeError("handler failed");
    if (message === "alarm") await this.#host.setAlarm(1_000);
    if (message === "echo") this.#host.deliver("echoed");
    this.log.push(`end ${message}`);
  }

  async onAlarm(now: number): Promise<void> {
    this.log.push(`alarm start ${now}`);
    await this.#host.storage.get(["seen"]);
    this.log.push(`alarm end ${now}`);
  }
}

function newHost(
  storage: ActorStorage,
  clock: ManualClock,
): { host: ActorHost<string>; actor: LoggingActor } {
  const host = new ActorHost<string>((h) => new LoggingActor(h), {
    storage,
    clock,
  });
  return { host, actor: host.actor as LoggingActor };
}

function actorTest(
  name: string,
  fn: (storage: ActorStorage) => Promise<void>,
  backends: Array<"memory" | "kv"> = ["memory"],
): void {
  for (const backend of backends) {
    Deno.test({
      name: backends.length > 1 ? `${name} (${backend} storage)` : name,
      sanitizeOps: true,
      sanitizeResources: true,
      async fn() {
        if (backend === "memory") return fn(new MemoryStorage());
        const kv = await Deno.openKv(":memory:");
        try {
          await fn(new KvStorage(kv, ["weir", "job", "actor", "job/log/0"]));
        } finally {
          kv.close();
        }
      },
    });
  }
}

actorTest(
  "ActorHost.drain() handles messages one at a time in delivery order while handlers await",
  async (storage) => {
    const { host, actor } = newHost(storage, new ManualClock());
    host.deliver("a");
    host.deliver("echo");
    const first = host.drain();
    host.deliver("b"); // while "a" is running
    const second = host.drain(); // waits for the first drain
    await Promise.all([first, second]);
    assert.deepEqual(actor.log, [
      "start a",
      "end a",
      "start echo",
      "end echo",
      "start b",
      "end b",
      "start echoed",
      "end echoed",
    ]);
    assert.equal(await storage.get(["seen"]), 4);
    assert.equal(host.depth, 0);
  },
  ["memory", "kv"],
);

actorTest(
  "ActorHost.depth counts the messages delivered and not yet handled",
  async (storage) => {
    const { host } = newHost(storage, new ManualClock());
    assert.equal(host.depth, 0);
    for (let i = 0; i < 3; i++) host.deliver(`m${i}`);
    assert.equal(host.depth, 3);
    const drained = host.drain();
    assert.equal(host.depth, 3); // the first one is running
    await drained;
    assert.equal(host.depth, 0);
    assert.equal(host.id, "job/log/0");
  },
);

actorTest(
  "ActorHost.drain() rejects when a handler throws and keeps that message for the next drain",
  async (storage) => {
    const { host, actor } = newHost(storage, new ManualClock());
    host.deliver("fail");
    host.deliver("after");
    await assert.rejects(host.drain(), {
      name: "RangeError",
      message: "handler failed",
    });
    assert.equal(host.depth, 2);
    assert.deepEqual(actor.log, ["start fail"]);
    await assert.rejects(host.drain(), { name: "RangeError" }); // retried first
    assert.deepEqual(actor.log, ["start fail", "start fail"]);
    assert.equal(host.depth, 2);
  },
);

actorTest(
  "ActorHost.runDueAlarm() does not fire before the alarm's time and fires at it",
  async (storage) => {
    const clock = new ManualClock(0);
    const { host, actor } = newHost(storage, clock);
    await host.setAlarm(1_000);
    clock.set(999);
    assert.equal(await host.runDueAlarm(), false);
    assert.equal(host.alarm, 1_000);
    clock.set(1_000);
    assert.equal(await host.runDueAlarm(), true);
    assert.deepEqual(actor.log, ["alarm start 1000", "alarm end 1000"]);
  },
);

actorTest(
  "ActorHost.runDueAlarm() is idempotent: a due alarm fires once and is cleared from storage",
  async (storage) => {
    const { host, actor } = newHost(storage, new ManualClock(0));
    await host.setAlarm(500);
    assert.equal(await storage.get(["alarm"]), 500);
    assert.equal(await host.runDueAlarm(2_000), true);
    assert.equal(await host.runDueAlarm(2_000), false);
    assert.equal(await host.runDueAlarm(3_000), false);
    assert.equal(actor.log.length, 2);
    assert.equal(host.alarm, null);
    assert.equal(await storage.get(["alarm"]), undefined);
  },
  ["memory", "kv"],
);

actorTest(
  "a restarted host fires, once, on activate(), an alarm whose time passed while it was down",
  async (storage) => {
    const clock = new ManualClock(0);
    const before = newHost(storage, clock);
    before.host.deliver("alarm"); // sets the alarm for 1_000
    await before.host.drain();
    // The process stops here; nothing runs while the clock passes 1_000.
    clock.set(5_000);
    const after = newHost(storage, clock);
    assert.equal(after.host.alarm, null); // not loaded yet
    assert.equal(await after.host.activate(), true);
    assert.deepEqual(after.actor.log, ["alarm start 5000", "alarm end 5000"]);
    assert.equal(await after.host.runDueAlarm(), false);
    const again = newHost(storage, clock);
    assert.equal(await again.host.activate(), false);
    assert.deepEqual(again.actor.log, []);
  },
  ["memory", "kv"],
);

actorTest(
  "activate() keeps an alarm that is not yet due, and runDueAlarm() fires it later",
  async (storage) => {
    const clock = new ManualClock(0);
    await newHost(storage, clock).host.setAlarm(1_000);
    const { host, actor } = newHost(storage, clock);
    assert.equal(await host.activate(), false);
    assert.equal(host.alarm, 1_000);
    clock.set(1_000);
    assert.equal(await host.runDueAlarm(), true);
    assert.deepEqual(actor.log, ["alarm start 1000", "alarm end 1000"]);
  },
);

actorTest(
  "runDueAlarm() loads the persisted alarm itself when activate() was not called",
  async (storage) => {
    await newHost(storage, new ManualClock()).host.setAlarm(10);
    const { host } = newHost(storage, new ManualClock(20));
    assert.equal(await host.runDueAlarm(), true);
  },
);

actorTest(
  "an alarm never interleaves with a message: it waits for the running step",
  async (storage) => {
    const { host, actor } = newHost(storage, new ManualClock(0));
    await host.setAlarm(0);
    host.deliver("a");
    host.deliver("b");
    const drained = host.drain();
    const fired = host.runDueAlarm(0);
    // Delivered while the drain runs: that drain handles it, alarm after.
    host.deliver("c");
    await Promise.all([drained, fired]);
    host.deliver("d");
    await Promise.all([host.drain(), host.runDueAlarm(0)]);
    assert.deepEqual(actor.log, [
      "start a",
      "end a",
      "start b",
      "end b",
      "start c",
      "end c",
      "alarm start 0",
      "alarm end 0",
      "start d",
      "end d",
    ]);
  },
);

actorTest(
  "an alarm handler that sets a new alarm keeps it, and one that throws leaves its alarm set",
  async (storage) => {
    let fail = false;
    const host = new ActorHost<never>((h) => ({
      id: "job/rearm/0",
      receive() {},
      async onAlarm(now) {
        if (fail) throw new RangeError("alarm failed");
        await h.setAlarm(now + 1_000);
      },
    }), { storage, clock: new ManualClock() });
    await host.setAlarm(100);
    assert.equal(await host.runDueAlarm(100), true);
    assert.equal(host.alarm, 1_100);
    assert.equal(await storage.get(["alarm"]), 1_100);
    fail = true;
    await assert.rejects(host.runDueAlarm(2_000), { message: "alarm failed" });
    assert.equal(host.alarm, 1_100);
    assert.equal(await storage.get(["alarm"]), 1_100);
    await host.deleteAlarm();
    assert.equal(await storage.get(["alarm"]), undefined);
    assert.equal(await host.runDueAlarm(5_000), false);
  },
  ["memory", "kv"],
);

actorTest(
  "ActorHost checks its arguments and names the parameter",
  async (storage) => {
    const clock = new ManualClock();
    assert.throws(
      () => new ActorHost(null as unknown as () => Actor<number>, { storage }),
      { name: "TypeError", message: /'create'/ },
    );
    assert.throws(
      () =>
        new ActorHost(
          () => ({ id: "a", receive() {} }),
          {} as { storage: ActorStorage },
        ),
      { name: "TypeError", message: /'options.storage'/ },
    );
    assert.throws(
      () =>
        new ActorHost(() => ({ receive() {} }) as unknown as Actor<number>, {
          storage,
        }),
      { name: "TypeError", message: /'actor.id'/ },
    );
    assert.throws(
      () =>
        new ActorHost(() => ({ id: "a" }) as unknown as Actor<number>, {
          storage,
        }),
      { name: "TypeError", message: /'actor.receive'/ },
    );
    const { host } = newHost(storage, clock);
    await assert.rejects(host.setAlarm(1.5), {
      name: "RangeError",
      message: /'atMs'.*1\.5/,
    });
    await assert.rejects(host.runDueAlarm(NaN), {
      name: "RangeError",
      message: /'now'/,
    });
    const noAlarm = new ActorHost(() => ({ id: "a", receive() {} }), {
      storage,
      clock,
    });
    await assert.rejects(noAlarm.setAlarm(5), {
      name: "TypeError",
      message: /'actor.onAlarm'/,
    });
  },
);
