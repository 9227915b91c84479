// The dashboard page's live updates (served at /dashboard_live.js by
// `dashboardRoutes`, after dashboard.js, whose drawing it calls): it
// listens to the job's server-sent events (`GET /jobs/:job/events`) and
// redraws from each `status` event; what the event does not carry (the
// culprit line, health, checkpoints, the charts) is re-read on an event at
// most every few seconds. Only when the stream cannot be opened does it
// fall back to a slow poll. Like dashboard.js it builds DOM nodes with
// textContent, never from HTML strings.
(function () {
  "use strict";
  const D = globalThis.weirDashboard;
  if (!D) return;
  const el = D.el;
  const base = D.base;
  // Re-read at most this often, in ms, on events (or on the slow poll).
  const EVERY = { job: 5000, side: 5000, checkpoints: 10000, charts: 5000 };
  const last = { job: 0, side: 0, checkpoints: 0, charts: 0 };
  let frame = 0;

  function due(what) {
    const now = Date.now();
    if (now - last[what] < EVERY[what]) return false;
    last[what] = now;
    return true;
  }
  function getJson(path) {
    return fetch(path, {
      headers: { Accept: "application/json" },
      cache: "no-store",
    }).then(function (response) {
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.json();
    });
  }
  function counted(how) {
    D.main.dataset.polls = String(Number(D.main.dataset.polls || "0") + 1);
    D.live.textContent = how + " \u00b7 updated " + new Date().toISOString();
  }
  // The job's JSON (GET /jobs/:job, or an event carrying the same).
  function drawJob(body) {
    const list = D.subtasksOf(body);
    if (list) D.drawSubtasks(list);
    if (body && Array.isArray(body.recentDeadLetters)) D.drawDeadLetters(body);
    return list !== null;
  }
  // A status event's latest watermark sample: { at, subtasks: { id: {...} } }.
  function drawSample(sample) {
    if (!sample || !sample.subtasks) return;
    for (const id in sample.subtasks) {
      const row = document.querySelector(
        'tr[data-subtask="' + CSS.escape(id) + '"]',
      );
      if (!row) continue;
      const values = sample.subtasks[id];
      ["input", "output"].forEach(function (side) {
        const old = row.querySelector(
          'td[data-testid="' + side + '-watermark"]',
        );
        if (old) {
          old.replaceWith(
            D.watermarkCell(side + "-watermark", values[side + "Watermark"]),
          );
        }
      });
    }
  }
  // Twin of checkpoint_summary.ts: the counts, last failure and start.
  function drawCheckpointSummary(body) {
    const p = document.getElementById("checkpoint-summary");
    if (!p || !body || !body.counts) return;
    const failures = body.failures || [];
    const last = failures[failures.length - 1];
    const start = !body.restoredFromKnown
      ? "where it started is not known"
      : body.restoredFrom === null
      ? "started afresh"
      : "started from checkpoint " + body.restoredFrom.id;
    p.textContent = body.counts.completed + " completed, " +
      body.counts.failed + " failed" +
      (last === undefined ? "" : " (last: " + last.id + ")") + "; " + start;
  }

  // GET /jobs/:job/culprit answers { text, cause, evidence, fix }.
  function drawCulprit(body) {
    const box = document.getElementById("culprit-box");
    if (!box || !body || typeof body.text !== "string") return;
    box.className = "culprit " + (body.cause ? "held" : "ok");
    const line = el("p", body.text, {
      id: "culprit",
      "data-testid": "culprit",
      "data-cause": String(body.cause || "none"),
    });
    const parts = [line];
    if (body.cause) {
      const open = document.getElementById("culprit-detail");
      const detail = el("details", null, { id: "culprit-detail" });
      if (open && open.open) detail.open = true;
      detail.appendChild(el("summary", "Evidence and fix"));
      detail.appendChild(document.createTextNode(String(body.evidence)));
      detail.appendChild(el("br"));
      detail.appendChild(el("em", "Fix:"));
      detail.appendChild(document.createTextNode(" " + body.fix));
      parts.push(detail);
    }
    box.replaceChildren.apply(box, parts);
  }
  // Swapped in only once loaded, so an image never flickers; data-frame
  // tells tests that the browser decoded a reloaded chart.
  function reload(id, file) {
    const img = document.getElementById(id);
    if (!img) return;
    const next = new Image();
    const n = ++frame;
    next.onload = function () {
      img.src = next.src;
      img.dataset.frame = String(n);
    };
    // As wide as the page shows it, so that a phone gets a legible chart.
    const shown = img.parentElement ? img.parentElement.clientWidth - 2 : 800;
    const width = Math.max(200, Math.min(800, Math.floor(shown)));
    next.src = base + "/" + file + "?frame=" + n + "&width=" + width;
  }
  function refresh(needJob) {
    if (needJob && due("job")) {
      getJson(base).then(function (body) {
        if (drawJob(body)) counted(D.live.dataset.how || "live");
      }).catch(function () {});
    }
    if (due("side")) {
      getJson(base + "/culprit").then(drawCulprit).catch(function () {});
      getJson(base + "/health").then(D.drawHealth).catch(function () {});
    }
    if (due("checkpoints")) {
      getJson(base + "/checkpoints").then(function (body) {
        const list = Array.isArray(body) ? body : body && body.checkpoints;
        if (Array.isArray(list)) D.drawCheckpoints(list);
        drawCheckpointSummary(body);
      }).catch(function () {});
    }
    if (due("charts")) {
      reload("lag-chart", "lag.svg");
      reload("timeline", "timeline.svg");
    }
  }
  // A turned phone or a resized window gets charts of its new width.
  let resized = null;
  addEventListener("resize", function () {
    clearTimeout(resized);
    resized = setTimeout(function () {
      reload("lag-chart", "lag.svg");
      reload("timeline", "timeline.svg");
    }, 300);
  });
  function onStatus(event) {
    let body;
    try {
      body = JSON.parse(event.data);
    } catch {
      return;
    }
    D.main.dataset.events = String(Number(D.main.dataset.events || "0") + 1);
    const full = drawJob(body);
    if (!full) drawSample(body && body.sample);
    if (full) counted("live");
    // An event without the subtasks' counters: read them, now and then.
    refresh(!full);
  }
  function poll() {
    D.live.dataset.how = "polling";
    last.job = 0;
    refresh(true);
    setTimeout(poll, EVERY.job);
  }
  if (typeof EventSource !== "function") return poll();
  const source = new EventSource(base + "/events");
  source.addEventListener("status", onStatus);
  source.onerror = function () {
    // The browser retries on its own while CONNECTING; once CLOSED it
    // gave up (e.g. the route refused the stream): poll slowly instead.
    if (source.readyState === EventSource.CLOSED) {
      D.live.textContent = "live stream closed: polling every 5 s";
      poll();
    } else {
      D.live.textContent = "live stream interrupted: reconnecting";
    }
  };
})();
