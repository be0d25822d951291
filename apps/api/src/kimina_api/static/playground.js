// The playground: load miniF2F examples, POST /v1/prove with stream: true, and draw attempts as events arrive.
// Model output is only ever inserted with textContent, never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
let controller = null; // aborts the running request

const VERDICT_TEXT = {
  valid: "valid proof",
  sorry: "uses sorry",
  lean_error: "Lean error",
  integrity: "integrity violation",
  timeout: "Lean timeout",
  infra: "unverified (verifier unavailable)",
};

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

async function loadExamples() {
  const box = $("examples");
  try {
    const examples = await (await fetch("/playground/examples.json")).json();
    for (const example of examples) {
      const button = el("button", "example", example.name);
      button.type = "button";
      button.title = example.informal_problem;
      button.addEventListener("click", () => {
        $("statement").value = example.formal_statement;
        $("informal").value = example.informal_problem;
      });
      box.append(button);
    }
  } catch (error) {
    box.append(el("span", "muted", `examples unavailable: ${error}`));
  }
}

async function checkHealth() {
  const pill = $("health");
  try {
    const health = await (await fetch("/health")).json();
    // A stand-in verifier runs no Lean: say so in the pill itself, not only in its tooltip.
    const verifier = !health.verifier.ok ? "down" : health.verifier.stand_in ? "STAND-IN (lean-repl-sim, no Lean)" : "ready";
    pill.textContent = `engine ${health.engine.ok ? "ready" : "down"} · verifier ${verifier}`;
    pill.title = `engine: ${health.engine.detail}\nverifier: ${health.verifier.detail}`;
    pill.className = `pill ${health.status !== "ok" ? "bad" : health.verifier.stand_in ? "warn" : "ok"}`;
    if (!health.verifier.ok && health.verifier.detail.startsWith("not configured")) $("verify").checked = false;
  } catch (error) {
    pill.textContent = "server unreachable";
    pill.className = "pill bad";
  }
}

function badge(attempt) {
  if (attempt.stage === "verifying") return el("span", "badge pending", "verifying…");
  if (!attempt.lean) return el("span", "badge", attempt.code ? "not verified" : "no Lean code");
  return el("span", `badge ${attempt.lean.kind}`, VERDICT_TEXT[attempt.lean.kind] || attempt.lean.kind);
}

function renderTurn(attempt) {
  const box = el("div", `turn turn-${attempt.turn}`);
  const head = el("div", "turn-head");
  head.append(el("strong", null, attempt.turn === 1 ? `Attempt ${attempt.index + 1}` : "Error-fix turn"), badge(attempt));
  const format = el("span", `badge ${attempt.format.ok ? "fmt-ok" : "fmt-bad"}`,
    attempt.format.ok ? "format ok" : `format: ${attempt.format.violations.map((v) => v.code).join(", ")}`);
  format.title = attempt.format.violations.map((v) => v.message).join("\n");
  head.append(format, el("span", "muted", `gen ${attempt.timings.generate_s.toFixed(1)} s · Lean ${attempt.timings.verify_s.toFixed(1)} s`));
  box.append(head);
  if (attempt.thinking) {
    const details = el("details");
    details.append(el("summary", null, `thinking (${attempt.thinking.length} characters)`), el("pre", "thinking", attempt.thinking));
    box.append(details);
  }
  box.append(el("pre", "code", attempt.code ?? attempt.completion));
  const lean = attempt.lean;
  if (lean && !lean.ok) {
    const lines = [
      ...lean.violations.map((v) => `${v.code}: ${v.message}`),
      ...lean.messages.map((m) => `${m.line ?? "?"}:${m.column ?? "?"} ${m.severity}: ${m.text}`),
    ];
    // The detail repeats the first problem; it is the only explanation when Lean could not be asked.
    if (!lines.length && lean.detail) lines.push(lean.detail);
    if (lines.length) box.append(el("pre", "lean", lines.join("\n")));
  }
  if (attempt.feedback) {
    const details = el("details");
    details.append(el("summary", null, "feedback sent for the fix"), el("pre", "feedback", attempt.feedback));
    box.append(details);
  }
  return box;
}

function showAttempt(attempt) {
  const id = `attempt-${attempt.index}`;
  const card = el("article", "attempt");
  card.id = id;
  card.append(renderTurn(attempt));
  if (attempt.fix) card.append(renderTurn(attempt.fix));
  const old = $(id);
  if (old) old.replaceWith(card);
  else $("attempts").append(card);
}

function showResult(result) {
  const summary = $("summary");
  summary.className = `summary ${result.proved ? "proved" : "failed"}`;
  const unknown = result.unverified ? ` · ${result.unverified} unverified (verifier unavailable)` : "";
  const simulated = result.stand_in ? " · verified by a STAND-IN, not real Lean: not proofs" : "";
  summary.textContent = (result.proved ? "Proved ✓" : "Not proved") +
    ` · ${result.attempts.length} attempts in ${result.timings.total_s.toFixed(1)} s${unknown}${simulated}`;
  result.attempts.forEach(showAttempt);
}

function showError(message) {
  $("summary").className = "summary error";
  $("summary").textContent = message;
}

// Splits a text/event-stream into {event, data} records; comments (keep-alives) are skipped.
function* parseEvents(block) {
  let event = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
  }
  if (data.length) yield { event, data: JSON.parse(data.join("\n")) };
}

async function prove(event) {
  event.preventDefault();
  const body = {
    formal_statement: $("statement").value,
    informal_problem: $("informal").value.trim() || null,
    n: Number($("n").value),
    sampling: { temperature: Number($("temperature").value), max_tokens: Number($("max-tokens").value) },
    verify: $("verify").checked,
    fix_turns: $("fix").checked && $("verify").checked ? 1 : 0,
    stream: true,
  };
  const headers = { "Content-Type": "application/json" };
  const key = $("api-key").value;
  localStorage.setItem("kimina-api-key", key);
  if (key) headers.Authorization = `Bearer ${key}`;
  $("attempts").replaceChildren();
  $("summary").className = "summary muted";
  $("summary").textContent = "Generating…";
  controller = new AbortController();
  $("prove").disabled = true;
  $("stop").disabled = false;
  try {
    const response = await fetch("/v1/prove", { method: "POST", headers, body: JSON.stringify(body), signal: controller.signal });
    if (!response.ok) {
      const error = await response.json().catch(() => ({ detail: response.statusText }));
      showError(`${response.status}: ${error.detail}`);
      return;
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        for (const { event: name, data } of parseEvents(buffer.slice(0, end))) {
          if (name === "attempt") {
            showAttempt(data);
            $("summary").textContent = "Working…";
          } else if (name === "result") showResult(data);
          else if (name === "error") showError(`${data.status}: ${data.detail}`);
        }
        buffer = buffer.slice(end + 2);
      }
    }
  } catch (error) {
    showError(error.name === "AbortError" ? "Stopped." : `Request failed: ${error}`);
  } finally {
    $("prove").disabled = false;
    $("stop").disabled = true;
    controller = null;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("api-key").value = localStorage.getItem("kimina-api-key") || "";
  $("prove-form").addEventListener("submit", prove);
  $("stop").addEventListener("click", () => controller && controller.abort());
  loadExamples();
  checkHealth();
});
