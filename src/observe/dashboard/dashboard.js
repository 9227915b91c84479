// The dashboard page's drawing (served at /dashboard.js by `dashboardRoutes`):
// it redraws the culprit line, the subtask tables, the health and
// dead-letter panels and the checkpoints from the JSON API's answers, for
// `dashboard_live.js`, which feeds it from the SSE stream. It builds DOM nodes
// with textContent, never from HTML strings, so no job data is parsed as
// markup. Its formatters and markup have twins in the page's server-side
// rendering (`subtask_tables.ts`, `health_panel.ts`, `dead_letter_panel.ts`,
// `html.ts`): change both together.
(function () {
  "use strict";
  const main = document.getElementById("job");
  if (!main || !main.dataset.job) return;
  const base = "/jobs/" + encodeURIComponent(main.dataset.job);
  const live = document.getElementById("live");
  const COLUMNS = ("Subtask|Input watermark|Output watermark|Status|Lag|" +
    "Records in|Records out|Late records|Mailbox").split("|");

  function num(v) {
    if (typeof v === "number") return v;
    if (v === "Infinity" || v === "+Infinity") return Infinity;
    if (v === "-Infinity") return -Infinity;
    if (typeof v === "string" && v !== "") {
      const n = Number(v);
      if (!isNaN(n)) return n;
      const t = Date.parse(v);
      if (!isNaN(t)) return t;
    }
    return NaN;
  }
  function el(tag, text, attrs) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    for (const k in attrs || {}) node.setAttribute(k, attrs[k]);
    return node;
  }
  function time(ms) {
    const d = new Date(ms);
    return isNaN(d.getTime()) ? String(ms) : d.toISOString();
  }
  function duration(ms) {
    if (!isFinite(ms)) return "\u2014";
    if (Math.abs(ms) < 1000) return Math.round(ms) + " ms";
    return (ms / 1000).toFixed(3) + " s";
  }
  function bytes(n) {
    if (n < 1024) return n + " B";
    if (n < 1048576) return (n / 1024).toFixed(1) + " KiB";
    return (n / 1048576).toFixed(1) + " MiB";
  }
  function watermarkCell(testId, value) {
    const ms = num(value);
    const td = el("td", null, {
      "data-testid": testId,
      "data-value": String(ms),
    });
    if (ms === -Infinity) {
      td.appendChild(el("span", "none yet", { "class": "none" }));
    } else if (ms === Infinity) {
      td.appendChild(el("span", "end of input", { "class": "none" }));
    } else if (isNaN(ms)) td.textContent = "\u2014";
    else {
      td.appendChild(document.createTextNode(time(ms)));
      td.appendChild(el("small", String(ms)));
    }
    return td;
  }
  // Twin of partitionList in subtask_tables.ts: each partition's status,
  // the active one with the lowest watermark marked when another is ahead.
  function partitionList(parts) {
    const ul = el("ul", null, { "class": "partitions" });
    ul.setAttribute("data-testid", "partition-states");
    const active = parts.filter((p) => p.status === "active");
    const ws = active.map((p) => num(p.watermark));
    const min = Math.min.apply(null, ws), max = Math.max.apply(null, ws);
    parts.forEach(function (p) {
      const w = num(p.watermark);
      const text = p.status === "finished" ? "" : ", " + time(w);
      const li = ul.appendChild(el("li", p.name + ": " + p.status + text));
      li.dataset.testid = "partition";
      Object.assign(li.dataset, { partition: p.name, status: p.status });
      li.dataset.value = String(w);
      if (p.status === "active" && w === min && max > min) {
        li.className = "lowest";
      }
    });
    return ul;
  }

  function numberCell(value) {
    return el(
      "td",
      value === undefined || value === null ? "\u2014" : String(value),
      { "class": "n" },
    );
  }
  // GET /jobs/:job answers { operators: [{ id, name, subtasks }] }; a bare
  // list of SubtaskStatus (or { subtasks }) is read too.
  function subtasksOf(body) {
    if (Array.isArray(body)) return body;
    if (!body || typeof body !== "object") return null;
    if (Array.isArray(body.operators)) {
      const list = [];
      body.operators.forEach(function (op) {
        (op.subtasks || []).forEach(function (s) {
          const copy = {};
          for (const k in s) copy[k] = s[k];
          copy.operator = op.id;
          copy.operatorName = op.name;
          list.push(copy);
        });
      });
      return list;
    }
    return Array.isArray(body.subtasks) ? body.subtasks : null;
  }
  function drawSubtasks(list) {
    const groups = [], byOperator = {}, names = {};
    list.forEach(function (s) {
      const operator = s.operator || String(s.id || "").split("/")[1] || "?";
      if (!byOperator[operator]) {
        byOperator[operator] = [];
        groups.push(operator);
      }
      byOperator[operator].push(s);
      if (s.operatorName) names[operator] = String(s.operatorName);
    });
    const container = document.getElementById("subtasks");
    // Partition names and states come with the served page only: keep them.
    const partitions = {}, states = {};
    container.querySelectorAll("tr[data-partitions]").forEach(function (tr) {
      partitions[tr.dataset.subtask] = tr.dataset.partitions;
    });
    container.querySelectorAll('[data-testid="partition-states"]').forEach(
      function (list) {
        const tr = list.closest("tr");
        if (tr) states[tr.dataset.subtask] = list;
      },
    );
    const tables = groups.map(function (operator) {
      const table = el("table", null, {
        "class": "operator",
        "data-testid": "operator-table",
        "data-operator": operator,
      });
      const caption = table.appendChild(
        el("caption", names[operator] || operator),
      );
      if (names[operator] && names[operator] !== operator) {
        caption.appendChild(document.createTextNode(" "));
        caption.appendChild(el("small", operator));
      }
      const head = el("tr");
      COLUMNS.forEach(function (c) {
        head.appendChild(el("th", c));
      });
      table.appendChild(el("thead")).appendChild(head);
      const body = table.appendChild(el("tbody"));
      const lowest = holding(byOperator[operator]);
      byOperator[operator].forEach(function (s) {
        const tr = el("tr", null, {
          "data-testid": "subtask-row",
          "data-subtask": String(s.id),
        });
        if (s === lowest) {
          tr.className = "lowest";
          tr.setAttribute("data-lowest", "true");
        }
        const first = tr.appendChild(el("td", String(s.subtask)));
        const read = partitions[String(s.id)];
        if (read) {
          tr.setAttribute("data-partitions", read);
          first.appendChild(
            el("small", "reads " + read, { "data-testid": "partitions" }),
          );
        }
        const list = Array.isArray(s.partitions)
          ? partitionList(s.partitions)
          : states[String(s.id)];
        if (list) first.appendChild(list);
        tr.appendChild(watermarkCell("input-watermark", s.inputWatermark));
        tr.appendChild(watermarkCell("output-watermark", s.outputWatermark));
        tr.appendChild(
          el(
            "td",
            (s.idle ? "idle" : "active") + (s.paused ? " (paused)" : "") +
              (s.worker ? " on " + s.worker : ""),
            { "data-testid": "subtask-status" },
          ),
        );
        tr.appendChild(
          el("td", duration(num(s.watermarkLagMs)), { "data-testid": "lag" }),
        );
        tr.appendChild(numberCell(s.recordsIn));
        tr.appendChild(numberCell(s.recordsOut));
        tr.appendChild(numberCell(s.gauges && s.gauges.numLateRecordsDropped));
        tr.appendChild(numberCell(s.mailboxDepth));
        body.appendChild(tr);
      });
      const scroll = el("div", null, { "class": "scroll" });
      scroll.appendChild(table);
      return scroll;
    });
    container.replaceChildren.apply(container, tables);
  }
  // The active subtask with the lowest output watermark, when another
  // active one is ahead of it (twin of holding() in subtask_tables.ts).
  function holding(rows) {
    const live = rows.filter(function (s) {
      return !s.idle && num(s.outputWatermark) < Infinity;
    });
    if (live.length < 2) return null;
    let lowest = live[0];
    live.forEach(function (s) {
      if (num(s.outputWatermark) < num(lowest.outputWatermark)) lowest = s;
    });
    return live.some(function (s) {
        return num(s.outputWatermark) > num(lowest.outputWatermark);
      })
      ? lowest
      : null;
  }
  function drawCheckpoints(list) {
    const rows = document.getElementById("checkpoint-rows");
    if (list.length === 0) {
      const empty = el("tr");
      empty.appendChild(el("td", "No checkpoint yet.", { colspan: "4" }));
      rows.replaceChildren(empty);
      return;
    }
    rows.replaceChildren.apply(
      rows,
      list.slice().reverse().map(function (c) {
        const tr = el("tr", null, { "data-testid": "checkpoint-row" });
        tr.appendChild(el("td", String(c.id), { "class": "n" }));
        tr.appendChild(el("td", time(num(c.createdAt))));
        tr.appendChild(
          el(
            "td",
            c.durationMs === undefined ? "\u2014" : duration(num(c.durationMs)),
          ),
        );
        tr.appendChild(
          el(
            "td",
            c.sizeBytes === undefined ? "\u2014" : bytes(num(c.sizeBytes)),
          ),
        );
        return tr;
      }),
    );
  }
  function lag(ms) {
    if (ms === Infinity) return "no watermark yet";
    if (ms === -Infinity) return "ended";
    return duration(ms);
  }
  function fixed(value, digits, suffix) {
    if (value === null || value === undefined) return "\u2014";
    const n = num(value);
    return isNaN(n) ? "\u2014" : n.toFixed(digits) + suffix;
  }
  // GET /jobs/:job/health answers { status, operators, diagnosis }.
  function drawHealth(body) {
    const badge = document.getElementById("health-status");
    const list = document.getElementById("health-operators");
    if (!badge || !list || !body || !Array.isArray(body.operators)) return;
    badge.textContent = String(body.status);
    badge.className = "badge " + body.status;
    badge.setAttribute("data-status", String(body.status));
    const diagnosis = Array.isArray(body.diagnosis) ? body.diagnosis : [];
    list.replaceChildren.apply(
      list,
      body.operators.map(function (o) {
        const li = el("li", null, {
          "data-testid": "operator-health",
          "data-operator": String(o.operator),
          "data-status": String(o.status),
        });
        li.appendChild(
          el("span", String(o.status), { "class": "badge " + o.status }),
        );
        li.appendChild(document.createTextNode(" "));
        li.appendChild(el("b", String(o.name)));
        li.appendChild(document.createTextNode(" "));
        li.appendChild(el("small", String(o.operator)));
        li.appendChild(document.createTextNode(": "));
        const late = o.lateRecordRatio.value;
        const metrics = [
          ["lag", o.watermarkLagMs, lag(num(o.watermarkLagMs.value))],
          ["drift", o.driftRate, fixed(o.driftRate.value, 2, "")],
          [
            "late",
            o.lateRecordRatio,
            late === null ? "\u2014" : fixed(num(late) * 100, 2, "%"),
          ],
          [
            "windows",
            o.windows,
            o.windows.value === null ? "\u2014" : String(o.windows.value),
          ],
        ];
        metrics.forEach(function (m, i) {
          if (i > 0) li.appendChild(document.createTextNode(" \u00b7 "));
          li.appendChild(
            el("span", m[0] + " " + m[2], { "class": "metric " + m[1].status }),
          );
        });
        const causes = diagnosis.filter(function (d) {
          return d.operator === o.operator;
        });
        if (causes.length > 0) {
          const ul = li.appendChild(el("ul"));
          causes.forEach(function (d) {
            const item = ul.appendChild(
              el("li", null, {
                "data-testid": "diagnosis",
                "data-cause": String(d.cause),
              }),
            );
            item.appendChild(el("b", String(d.cause)));
            item.appendChild(
              document.createTextNode(
                (d.subtask === undefined
                  ? ""
                  : " (subtask " + d.subtask + ")") + ": " + d.evidence,
              ),
            );
            item.appendChild(el("br"));
            item.appendChild(el("em", "Fix:"));
            item.appendChild(document.createTextNode(" " + d.fix));
          });
        }
        return li;
      }),
    );
  }
  const DEAD_LETTER_COLUMNS = "Set aside at|Operator|Position|Reason|Error"
    .split("|");
  function drawDeadLetters(body) {
    const badge = document.getElementById("dead-letter-count");
    const list = document.getElementById("dead-letter-list");
    if (!badge || !list || !body || typeof body.deadLetters !== "number") {
      return;
    }
    const count = body.deadLetters;
    badge.textContent = count === 0 ? "none" : String(count);
    badge.className = "badge " + (count === 0 ? "ok" : "bad");
    badge.setAttribute("data-count", String(count));
    const recent = Array.isArray(body.recentDeadLetters)
      ? body.recentDeadLetters.slice().reverse()
      : [];
    if (recent.length === 0) return list.replaceChildren();
    const table = el("table", null, { "data-testid": "dead-letter-table" });
    const head = el("tr");
    DEAD_LETTER_COLUMNS.forEach(function (c) {
      head.appendChild(el("th", c));
    });
    table.appendChild(el("thead")).appendChild(head);
    const rows = table.appendChild(el("tbody"));
    recent.forEach(function (l) {
      const tr = rows.appendChild(
        el("tr", null, {
          "data-testid": "dead-letter-row",
          "data-reason": String(l.reason),
        }),
      );
      tr.appendChild(el("td", time(num(l.at))));
      tr.appendChild(el("td", String(l.operator))).appendChild(
        el("small", "subtask " + l.subtask),
      );
      tr.appendChild(el("td", String(l.position)));
      tr.appendChild(el("td", String(l.reason)));
      const error = tr.appendChild(el("td"));
      error.appendChild(el("b", String(l.error && l.error.name)));
      error.appendChild(
        document.createTextNode(": " + String(l.error && l.error.message)),
      );
    });
    const hint = recent.length < count
      ? "The " + recent.length + " most recent of " + count + ", newest first."
      : "Newest first.";
    list.replaceChildren(el("p", hint, { "class": "hint" }), table);
  }
  globalThis.weirDashboard = {
    main: main,
    base: base,
    live: live,
    subtasksOf: subtasksOf,
    drawSubtasks: drawSubtasks,
    drawDeadLetters: drawDeadLetters,
    drawHealth: drawHealth,
    el: el,
    watermarkCell: watermarkCell,
    drawCheckpoints: drawCheckpoints,
  };
})();
