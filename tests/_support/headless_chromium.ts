// Headless Chromium driven over the DevTools protocol, for browser tests of
// pages that keep a connection open (an event stream), which
// `--dump-dom --virtual-time-budget` waits on for ever.

/** The chromium binary on this machine, or `null`. */
export function findChromium(): string | null {
  const candidates = ["/usr/bin/chromium"];
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (dir !== "") candidates.push(`${dir}/chromium`);
  }
  for (const path of candidates) {
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // Not there: try the next one.
    }
  }
  return null;
}

/** One browser tab. */
export interface Tab {
  /** Opens `url` and waits for its load event. */
  open(url: string): Promise<void>;
  /** The value of a JavaScript expression in the page. */
  evaluate<T>(expression: string): Promise<T>;
  /** Waits until the expression is truthy; throws after `ms` with `what`. */
  until(expression: string, what: string, ms?: number): Promise<void>;
  /** Sets the viewport to `width` CSS pixels (a phone below 600). */
  resize(width: number): Promise<void>;
  /** A PNG screenshot of the whole page at the viewport's `width`. */
  screenshot(width: number): Promise<Uint8Array>;
  /** Closes the tab and the browser. */
  close(): Promise<void>;
}

/** Starts headless Chromium with a fresh profile and opens one tab. */
export async function launch(binary: string, profile: string): Promise<Tab> {
  const child = new Deno.Command(binary, {
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--hide-scrollbars",
      "--remote-debugging-port=0",
      `--user-data-dir=${profile}`,
      "about:blank",
    ],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const lines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  let endpoint: string | null = null;
  while (endpoint === null) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`chromium did not start: ${seen.slice(-2_000)}`);
    seen += value;
    endpoint = /DevTools listening on (ws:\/\/\S+)/.exec(seen)?.[1] ?? null;
  }
  // Keep draining stderr so that chromium never blocks on it.
  (async () => {
    while (!(await lines.read()).done) { /* drained */ }
  })().catch(() => {});
  const port = new URL(endpoint).port;
  const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`))
    .json() as Array<{ type: string; webSocketDebuggerUrl: string }>;
  const page = targets.find((t) => t.type === "page")!;
  const socket = new WebSocket(page.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  let next = 0;
  const pending = new Map<number, (message: Record<string, unknown>) => void>();
  const events = new Map<string, () => void>();
  socket.onmessage = (e) => {
    const message = JSON.parse(e.data);
    if (message.id !== undefined) pending.get(message.id)?.(message);
    else events.get(message.method)?.();
  };
  function send(method: string, params: Record<string, unknown> = {}) {
    const id = ++next;
    socket.send(JSON.stringify({ id, method, params }));
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      pending.set(id, (message) => {
        pending.delete(id);
        if (message.error) reject(new Error(JSON.stringify(message.error)));
        else resolve(message.result as Record<string, unknown>);
      });
    });
  }
  await send("Page.enable");
  const tab: Tab = {
    async open(url) {
      const loaded = new Promise<void>((r) =>
        events.set("Page.loadEventFired", r)
      );
      await send("Page.navigate", { url });
      await loaded;
    },
    async evaluate<T>(expression: string) {
      const result = await send("Runtime.evaluate", {
        expression,
        returnByValue: true,
      }) as { result: { value: T } };
      return result.result.value;
    },
    async until(expression, what, ms = 20_000) {
      const deadline = Date.now() + ms;
      while (!(await tab.evaluate<boolean>(`Boolean(${expression})`))) {
        if (Date.now() > deadline) {
          throw new Error(`Timed out waiting: ${what}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async resize(width) {
      await send("Emulation.setDeviceMetricsOverride", {
        width,
        height: 900,
        deviceScaleFactor: 1,
        mobile: width < 600,
      });
    },
    async screenshot(width) {
      const height = await tab.evaluate<number>(
        "document.documentElement.scrollHeight",
      );
      const shot = await send("Page.captureScreenshot", {
        format: "png",
        captureBeyondViewport: true,
        clip: { x: 0, y: 0, width, height, scale: 1 },
      }) as { data: string };
      return Uint8Array.from(atob(shot.data), (c) => c.charCodeAt(0));
    },
    async close() {
      // Browser.close lets every chromium process exit and finish writing
      // its profile, which a kill of the main process does not.
      const browser = new WebSocket(endpoint!);
      await new Promise((resolve) => {
        browser.onopen = resolve;
        browser.onerror = resolve;
      });
      if (browser.readyState === WebSocket.OPEN) {
        browser.send(JSON.stringify({ id: 1, method: "Browser.close" }));
      } else child.kill();
      await child.status;
      socket.close();
      browser.close();
    },
  };
  return tab;
}
