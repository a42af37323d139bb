// research serve: the runs list, the new-run form and the run page, on the JSON API (api.py).
// What the page shows of a run as it is (its status, branches, budget, cost, answers, reviews, refinement, the final
// gate's report, each trace line) comes rendered by the server with the audit viewer's own section functions
// (fragments.py, every text escaped there) and is inserted by fragment() below; what this script draws itself (the
// forms, the plan gate's editable rows) puts every text from a run in the page as a text node (h(), textContent).
"use strict";

const MIN_QUESTION_WORDS = 3;  // the form refuses a shorter question: a word or two gives the Planner nothing to plan

// Why a question typed in a form is too short to start a run on, or null.
function tooShort(question) {
  const words = question.split(/\s+/).filter((w) => /\w/.test(w)).length;
  if (!question) return "QUESTION: must not be empty";
  return words < MIN_QUESTION_WORDS
    ? `QUESTION: too short to research (${words} word${words === 1 ? "" : "s"}): ask a whole question, such as "How do asyncio.TaskGroup and asyncio.gather differ?"`
    : null;
}
let meta = null;
let cleanup = [];

// ---- small helpers ------------------------------------------------------------------------

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "value") el.value = v;
    else if (k === "checked") el.checked = !!v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// A fragment the server rendered (fragments.py) as nodes: parsed apart from the page (DOMParser runs no script),
// with its links, the audit viewer's own, resolved against the run's viewer (/runs/RUN_ID/), where they point.
function fragment(html, id) {
  const doc = new DOMParser().parseFromString(`<!DOCTYPE html><body>${html || ""}</body>`, "text/html");
  doc.querySelectorAll("script, iframe, object, embed, form").forEach((n) => n.remove());  // never rendered; never kept
  for (const a of doc.querySelectorAll("a[href]")) {
    const href = a.getAttribute("href");
    a.dataset.href = href;
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) { a.target = "_blank"; a.rel = "noopener"; }
    else a.setAttribute("href", `/runs/${encodeURIComponent(id)}/${href}`);
  }
  return [...doc.body.childNodes];
}

// A badge the plan gate's editable questions show (a tag, "added"), as the viewer's badge() draws one.
function badge(text, kind) {
  const cls = String(kind || text || "none").toLowerCase().replace(/[^a-z0-9_-]/g, "");
  return h("span", { class: "badge b-" + cls }, String(text || "").replace(/_/g, " "));
}

async function api(method, path, body) {
  const opts = { method, headers: { Accept: "application/json" }, credentials: "same-origin" };
  if (method !== "GET") {
    opts.headers["Content-Type"] = "application/json";
    opts.headers["X-Research-Request"] = "1"; // the CSRF guard's custom header (security.py)
    opts.body = JSON.stringify(body || {});
  }
  const res = await fetch(path, opts);
  let data = null;
  try { data = await res.json(); } catch (e) { data = { error: res.statusText }; }
  if (!res.ok) { const err = new Error(data.error || res.statusText); err.field = data.field; err.status = res.status; throw err; }
  return data;
}

function when(ts) {
  if (!ts) return "—";
  const d = new Date(ts);
  return isNaN(d) ? ts : d.toLocaleString();
}

function seconds(s) {
  if (s === null || s === undefined) return "—";
  if (s < 60) return s.toFixed(1) + " s";
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${Math.round(s % 60)} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

function spentLine(budget) {
  const s = (budget && budget.spent) || {};
  return `${s.llm_calls || 0} calls, ${s.tokens || 0} tokens, ${s.searches || 0} searches`;
}

function mount(...nodes) {
  const app = document.getElementById("app");
  app.replaceChildren(...nodes);
  return app;
}

function every(ms, fn) {
  fn();
  const id = setInterval(fn, ms);
  cleanup.push(() => clearInterval(id));
}

// ---- runs list ------------------------------------------------------------------------------

function runsPage() {
  const select = h("select", { id: "status-filter", "aria-label": "status" },
    h("option", { value: "" }, "all statuses"), meta.statuses.map((s) => h("option", { value: s }, s.replace(/_/g, " "))));
  const body = h("tbody");
  const count = h("span", { class: "muted" });
  const table = h("table", { id: "runs" },
    h("thead", {}, h("tr", {}, ["status", "question", "started", "duration", "engine / model", "budget spent", ""].map((t) =>
      h("th", t === "duration" ? { title: "the time the run worked, not counting its waits for a person (gates, a stop to resume)" } : {}, t)))),
    body);
  async function refresh() {
    const q = select.value ? "?status=" + encodeURIComponent(select.value) : "";
    let data;
    try { data = await api("GET", "/api/runs" + q); } catch (e) {
      count.textContent = e.status ? e.message : "The server does not answer: it may have stopped (retrying every 2 s).";
      return;
    }
    count.textContent = `${data.runs.length} run(s)`;
    body.replaceChildren(...data.runs.map((r) => h("tr", { "data-run": r.run_id || r.ticket, "data-status": r.status },
      h("td", {}, fragment(r.fragments.status, r.run_id), r.live ? h("span", { class: "live" }, " ● live") : null,
        r.position ? h("span", { class: "muted" }, ` #${r.position} in the queue`) : null,
        r.queued ? h("span", { class: "muted queued" }, ` queued to continue (#${r.queued})`) : null),
      h("td", {}, r.run_id ? h("a", { href: "#/run/" + r.run_id }, r.question || "(unreadable run)") : (r.question || ""),
        r.status_reason && !r.run_id ? h("div", { class: "muted" }, r.status_reason) : null),
      h("td", {}, when(r.created_at)),
      h("td", {}, seconds(r.duration_seconds)),
      h("td", {}, r.engines.join(", ") + (r.models.length ? " · " + r.models.join(", ") : "")),
      h("td", {}, spentLine(r.budget)),
      h("td", {}, r.run_id ? h("a", { href: `/runs/${r.run_id}/` }, "audit") : null))));
  }
  select.addEventListener("change", refresh);
  mount(h("h2", {}, "Runs"), h("p", {}, "Filter: ", select, " ", count, " · runs folder ", h("code", {}, meta.runs_dir)), table);
  every(2000, refresh);
}

// ---- new run ----------------------------------------------------------------------------------

function field(label, name, input, note) {
  return h("div", { class: "field", "data-field": name },
    h("label", { for: "f-" + name }, label), input, h("span", { class: "field-error", "data-error-for": name }), note ? h("div", { class: "muted" }, note) : null);
}

// One option's input, drawn from its metadata (GET /api/meta `form`: the run options a browser may set, request.py
// form_fields): a choice, a checkbox, a bounded number or text; its flag and help line are the label's title.
function optionField(f) {
  const attrs = { id: "f-" + f.name, name: f.name };
  const input = f.input === "select" ? h("select", attrs, h("option", { value: "" }, "default"), f.choices.map((c) => h("option", { value: c }, c)))
    : f.input === "checkbox" ? h("input", { ...attrs, type: "checkbox" })
    : f.input === "number" ? h("input", { ...attrs, type: "number", min: f.min, max: f.max, step: f.step })
    : h("input", { ...attrs, type: "text", placeholder: f.example });
  return titled(field(f.label, f.name, input), f);
}

function titled(el, f) {
  if (f) el.querySelector("label").title = `${f.flag}: ${f.help}`;
  return el;
}

// The request body the form's options make: an empty box is an option not given; a checkbox is always sent.
function optionValues(form) {
  const body = {}, budget = {};
  for (const f of meta.form) {
    const el = form.elements[f.name];
    if (!el) continue;
    const raw = f.input === "checkbox" ? el.checked : el.value.trim();
    if (raw === "") continue;
    const value = f.input === "number" ? Number(raw) : raw;
    if (f.name.startsWith("budget.")) budget[f.name.slice("budget.".length)] = value;
    else body[f.name] = value;
  }
  if (Object.keys(budget).length) body.budget = budget;
  return body;
}

function newRunPage() {
  const roots = meta.corpus_roots;
  const own = (name) => meta.form.find((f) => f.name === name);
  const rest = meta.form.filter((f) => f.name !== "question" && f.name !== "corpus");
  const form = h("form", { class: "new panel", id: "new-run", novalidate: true },
    titled(field("Question", "question", h("textarea", { id: "f-question", name: "question", rows: 3, required: true })), own("question")),
    titled(field("Corpus", "corpus", h("input", { type: "text", id: "f-corpus", name: "corpus", class: "wide", value: roots.includes("python-docs") ? "python-docs" : "", list: "corpus-roots" }),
      "python-docs, or a folder under an allowed root, by its name there or its full path: " + roots.join(", ")), own("corpus")),
    h("datalist", { id: "corpus-roots" }, (meta.corpora || []).map((c) => h("option", { value: c.name, label: c.path }))),
    h("div", { class: "grid" }, rest.map(optionField)),
    h("p", { class: "error", id: "form-error" }),
    h("button", { type: "submit", id: "start" }, "Start run"));
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    form.querySelectorAll(".field-error").forEach((e) => (e.textContent = ""));
    form.querySelector("#form-error").textContent = "";
    const v = (n) => form.elements[n] && form.elements[n].value.trim();
    const body = { question: v("question"), corpus: v("corpus") || undefined, ...optionValues(form) };
    const short = tooShort(body.question);
    if (short) { form.querySelector('[data-error-for="question"]').textContent = short; return; }
    const button = form.querySelector("#start");
    button.disabled = true;
    button.textContent = "Starting…";
    try {
      const res = await api("POST", "/api/runs", body);
      location.hash = res.run_id ? "#/run/" + res.run_id : "#/";  // queued: the runs list shows its place
    } catch (e) {
      const slot = e.field && form.querySelector(`[data-error-for="${CSS.escape(e.field)}"]`);
      (slot || form.querySelector("#form-error")).textContent = e.message;
    } finally {
      button.disabled = false;
      button.textContent = "Start run";
    }
  });
  // only options that apply: the search provider only with the web on
  const webBox = form.querySelector("#f-web");
  const searchField = form.querySelector('[data-field="search"]');
  const syncWeb = () => { if (searchField) searchField.hidden = !webBox.checked; };
  webBox.addEventListener("change", syncWeb);
  syncWeb();
  mount(h("h2", {}, "New run"), form);
}

// ---- run page -----------------------------------------------------------------------------------

function revisionsKey(id) { return "research-serve-plans-" + id; }

function rememberPlan(id, plan) {
  // The previous revision is shown beside a refined plan: kept by this browser tab as it saw it
  // (plan.json holds the current revision only; the run folder is not written to for this).
  if (!plan || !plan.revision) return {};
  let seen = {};
  try { seen = JSON.parse(sessionStorage.getItem(revisionsKey(id)) || "{}"); } catch (e) { seen = {}; }
  if (!seen[plan.revision]) { seen[plan.revision] = plan; sessionStorage.setItem(revisionsKey(id), JSON.stringify(seen)); }
  return seen;
}

function growing(area) {
  // A question is read whole: the box wraps and grows with its text (style set through the CSSOM, which the CSP allows).
  const fit = () => { area.style.height = "auto"; area.style.height = area.scrollHeight + 2 + "px"; };
  area.addEventListener("input", fit);
  requestAnimationFrame(fit);
  return area;
}

function splitList(text) { return text.split(",").map((s) => s.trim()).filter(Boolean); }

function planGate(id, d, seen) {
  const plan = d.plan;
  const rows = h("tbody");
  const err = h("p", { class: "error", id: "plan-error" });
  function addRow(q, isNew) {
    const tr = h("tr", { class: "q", "data-qid": q.id },
      h("td", {}, h("strong", {}, q.id), " ", q.tag ? badge(q.tag, q.tag) : null, isNew ? badge("added", "new") : null),
      h("td", {}, growing(h("textarea", { class: "wide q-text", rows: 2, "aria-label": "question " + q.id }, q.text || ""))),
      h("td", {}, h("select", { class: "q-kind" }, ["research", "deliverable"].map((k) => h("option", { value: k, selected: q.kind === k }, k)))),
      h("td", {}, h("input", { type: "checkbox", class: "q-critical", checked: q.critical, "aria-label": "critical" })),
      h("td", {}, [...new Set([...(d.offered_sources || ["corpus"]), ...(q.allowed_sources || [])])].map((s) => h("label", {}, h("input", { type: "checkbox", class: "q-src", value: s, checked: (q.allowed_sources || ["corpus"]).includes(s) }), s, " "))),
      h("td", {}, h("input", { type: "text", class: "wide q-terms", value: (q.search_terms || []).join(", "), "aria-label": "search terms " + q.id })),
      h("td", {}, h("button", { type: "button", class: "danger q-remove", onclick: () => tr.remove() }, "remove")),
      h("td", { class: "field-error q-error" }));
    tr._original = q;
    rows.append(tr);
  }
  plan.questions.forEach((q) => addRow(q, false));
  function edited() {
    const questions = [...rows.querySelectorAll("tr.q")].map((tr) => {
      const q = { ...tr._original };
      q.text = tr.querySelector(".q-text").value;
      q.kind = tr.querySelector(".q-kind").value;
      q.critical = tr.querySelector(".q-critical").checked;
      q.allowed_sources = [...tr.querySelectorAll(".q-src")].filter((c) => c.checked).map((c) => c.value);
      q.search_terms = splitList(tr.querySelector(".q-terms").value);
      if (!tr._original.search_terms && !q.search_terms.length) delete q.search_terms;
      if (!tr._original.allowed_sources && q.allowed_sources.length === 1 && q.allowed_sources[0] === "corpus") delete q.allowed_sources;
      return q;
    });
    return { ...plan, questions };
  }
  const addButton = h("button", { type: "button", class: "secondary", id: "add-question", onclick: () => {
    const ids = [...rows.querySelectorAll("tr.q")].map((tr) => Number(String(tr.dataset.qid).replace(/\D/g, "")) || 0);
    const next = "Q" + (Math.max(0, ...ids, ...plan.questions.map((q) => Number(q.id.replace(/\D/g, "")) || 0)) + 1);
    addRow({ id: next, text: "", kind: "research", critical: false, allowed_sources: ["corpus"], search_terms: [] }, true);
  } }, "add question");
  const feedback = h("textarea", { id: "feedback", rows: 2, placeholder: "What should the Planner change?" });
  async function send(body) {
    err.textContent = "";
    rows.querySelectorAll("tr").forEach((tr) => { tr.classList.remove("row-error"); const e = tr.querySelector(".q-error"); if (e) e.textContent = ""; });
    try {
      await api("POST", `/api/runs/${id}/plan`, body);
      err.textContent = "";
    } catch (e) {
      const m = /questions\/(\d+)/.exec(e.message);
      const tr = m && rows.querySelectorAll("tr.q")[Number(m[1])];
      if (tr) { tr.classList.add("row-error"); tr.querySelector(".q-error").textContent = e.message; }
      err.textContent = e.message;
    }
  }
  const approve = h("button", { type: "button", id: "approve-plan", onclick: () => {
    const next = edited();
    const changed = JSON.stringify(next.questions) !== JSON.stringify(plan.questions);
    send(changed ? { decision: "edit", plan: next } : { decision: "approve" });
  } }, "Approve plan");
  const reject = h("button", { type: "button", class: "danger", id: "reject-plan", onclick: () => send({ decision: "reject", feedback: feedback.value }) }, "Reject with feedback");
  const refinement = d.fragments.refinement && h("div", { id: "refinement" }, fragment(d.fragments.refinement, id));
  const prev = seen[plan.revision - 1];
  const previous = prev && h("div", { class: "panel", id: "previous-revision" },
    h("h3", {}, `Previous revision (${prev.revision})`),
    h("table", {}, h("tbody", {}, prev.questions.map((q) => h("tr", {}, h("td", {}, q.id), h("td", {}, q.kind), h("td", {}, q.text))))));
  const current = h("div", { id: "current-revision" },
    h("table", { class: "plan" },
      h("thead", {}, h("tr", {}, ["id", "question", "kind", "critical", "allowed sources", "search terms", "", ""].map((t) => h("th", {}, t)))), rows),
    h("p", {}, addButton));
  return h("section", { class: "panel gate", id: "plan-gate" },
    h("h3", { id: "plan-title" }, `Plan gate: revision ${plan.revision}`, " ", h("code", { class: "sha" }, (d.plan_sha256 || "").slice(0, 16))),
    h("p", { class: "muted" }, plan.deliverable || ""),
    previous ? h("div", { class: "cols" }, previous, current) : current,
    refinement, err,
    h("p", {}, approve),
    h("p", {}, feedback), h("p", {}, reject));
}

function quotePanel(q, label) {
  // the card's quote, highlighted where it stands in its source's snapshot
  return [h("h4", {}, label, " · card ", h("code", {}, q.card_id), " · ", q.title || "", " ", h("span", { class: "muted" }, `(${q.source_id})`)),
    h("p", { class: "quote-context" }, q.before ? "…" + q.before : "", h("mark", { class: "quote" }, q.quote), q.after ? q.after + "…" : ""),
    q.verbatim ? null : h("p", { class: "error" }, "This card's quote is not verbatim in its source's snapshot (see research validate).")];
}

function finalGate(id, d) {
  const err = h("p", { class: "error", id: "final-error" });
  if (!d.draft) return h("section", { class: "panel gate", id: "final-gate" }, h("p", {}, "No draft has passed review."));
  const sign = h("button", { type: "button", id: "sign-off", onclick: async () => {
    err.textContent = "";
    try { await api("POST", `/api/runs/${id}/final`, { version: d.draft.sha256 }); } catch (e) { err.textContent = e.message; }
  } }, "Sign off this report");
  const panel = h("aside", { class: "panel", id: "quote-panel", hidden: true });
  const report = h("article", { class: "report", id: "final-report" });
  const show = (cardId, label) => {
    const q = (d.draft.quotes || {})[cardId];
    panel.replaceChildren(...(q ? quotePanel(q, label) : [h("p", { class: "error" }, `card ${cardId}: not found in this run`)]));
    panel.hidden = false;
    panel.scrollIntoView({ block: "nearest" });
  };
  // a citation opens its card's quote beside the report; a link to an anchor of the report scrolls to it
  report.addEventListener("click", (ev) => {
    const a = ev.target.closest && ev.target.closest("a[data-href]");
    const card = a && /^source-cards\/([a-z0-9][a-z0-9._-]*)\.json$/.exec(a.dataset.href);
    if (card) { ev.preventDefault(); show(card[1], a.textContent); }
    else if (a && a.dataset.href.startsWith("#")) {
      ev.preventDefault();
      const at = report.querySelector(`[id="${CSS.escape(a.dataset.href.slice(1))}"]`);
      if (at) at.scrollIntoView({ block: "center" });
    }
  });
  if (d.fragments.report) {
    report.append(...fragment(d.fragments.report, id));
    report.querySelectorAll('a[data-href^="source-cards/"]').forEach((a) => a.classList.add("cite"));
  } else report.append(h("p", { class: "error", id: "report-error" }, "This draft cannot be rendered as a report: ", d.draft.report_error || ""));
  return h("section", { class: "panel gate", id: "final-gate" },
    h("h3", {}, "Final gate: ", d.draft.path),
    h("p", {}, "sha256 ", h("code", { class: "sha", id: "draft-sha" }, d.draft.sha256)),
    h("p", { class: "muted" }, "The report as final-report.md will hold it once signed. A citation opens its card's quote in the source."),
    h("div", { class: "cols" }, report, panel),
    h("details", { id: "draft-as-written" }, h("summary", {}, "The draft as written"), h("pre", { class: "draft" }, d.draft.text || "")),
    err, sign);
}

function resumePanel(id, d) {
  const BUDGET_DIMS = meta.form.filter((f) => f.name.startsWith("budget.")).map((f) => f.name.slice("budget.".length));
  const err = h("p", { class: "error", id: "resume-error" });
  const limits = (d.budget && d.budget.limits) || {};
  const inputs = {};
  const fields = BUDGET_DIMS.map((dim) => {
    inputs[dim] = h("input", { type: "number", id: "r-" + dim, min: 0, value: limits[dim] === null || limits[dim] === undefined ? "" : limits[dim] });
    return h("label", {}, dim.replace(/_/g, " "), " ", inputs[dim], " ");
  });
  const go = h("button", { type: "button", id: "resume", onclick: async () => {
    err.textContent = "";
    const budget = {};
    for (const dim of BUDGET_DIMS) {
      const v = inputs[dim].value.trim();
      if (v !== "" && Number(v) !== limits[dim]) budget[dim] = Number(v);
    }
    try { await api("POST", `/api/runs/${id}/resume`, { budget }); } catch (e) { err.textContent = e.message; }
  } }, "Resume");
  const why = meta.resumable.includes(d.status) ? `The run is ${d.status.replace(/_/g, " ")}: ${d.status_reason || ""}` : `The run was cut off while ${d.status} (no process works on it).`;
  return h("section", { class: "panel gate", id: "resume-panel" }, h("h3", {}, "Resume"), h("p", {}, why), h("p", {}, fields), err, go);
}

function askPanel(id) {
  const err = h("p", { class: "error", id: "ask-error" });
  const input = h("input", { type: "text", id: "ask-question", size: 70, placeholder: "The next question, building on this run's evidence" });
  const go = h("button", { type: "button", id: "ask", onclick: async () => {
    err.textContent = "";
    const short = tooShort(input.value.trim());
    if (short) { err.textContent = short; return; }
    try {
      const res = await api("POST", `/api/runs/${id}/ask`, { question: input.value });
      location.hash = res.run_id ? "#/run/" + res.run_id : "#/";
    } catch (e) { err.textContent = e.message; }
  } }, "Ask a follow-up");
  return h("section", { class: "panel gate", id: "ask-panel" }, h("h3", {}, "Ask a follow-up"),
    h("p", {}, "A new run that starts from this run's sources and cards and researches only what is new."), input, " ", go, err);
}

function runPage(id) {
  const head = h("div", { id: "run-head" });
  const gate = h("div", { id: "gate" });
  const timeline = h("div", { id: "timeline" });
  const events = h("ol", { class: "events", id: "events" });
  let gateKey = null;
  mount(head, gate, timeline, h("h3", {}, "Trace"), events);

  function render(d) {
    const seen = rememberPlan(id, d.plan);
    const part = (name) => fragment((d.fragments || {})[name], id);  // rendered by the viewer's sections
    head.replaceChildren(...[
      h("h2", {}, d.question),
      h("p", {}, "status ", part("status"), d.live ? h("span", { class: "live", id: "live" }, " ● working") : null,
        d.queued ? h("span", { class: "muted", id: "queued" }, ` · queued to continue (#${d.queued} in the queue)`) : null,
        d.status_reason ? h("span", { class: "muted" }, " — " + d.status_reason) : null,
        " · ", h("a", { href: `/runs/${id}/`, id: "open-viewer" }, "audit viewer"),
        d.final_report ? [" · ", h("a", { href: `/runs/${id}/final-report.md` }, "final-report.md")] : null,
        d.status === "completed" ? h("span", { id: "export" }, " · export: ", [["pdf", "PDF"], ["docx", "Word"], ["html", "HTML"], ["md", "Markdown"]]
          .map(([f, label], i) => [i ? " " : "", h("a", { href: `/api/runs/${id}/export/${f}`, download: "", class: "button-link", "data-format": f }, label)])) : null),
      d.parent ? h("p", { id: "parent-run" }, "follow-up of ", h("a", { href: "#/run/" + d.parent.run_id }, d.parent.question || d.parent.run_id)) : null,
      d.children && d.children.length ? h("p", { id: "child-runs" }, "followed up by ",
        d.children.map((c, i) => [i ? "; " : "", h("a", { href: "#/run/" + c.run_id }, c.question || c.run_id)])) : null,
      d.error ? h("p", { class: "error", id: "run-error" }, d.error) : null].filter(Boolean));
    const key = [d.gate, d.plan_sha256, d.draft && d.draft.sha256, d.resumable, d.live, d.status, d.queued].join("|");
    if (key !== gateKey) {
      gateKey = key;
      if (d.queued) gate.replaceChildren();  // a decision taken, the run waits for a slot to go on
      else if (d.gate === "plan" && d.plan) gate.replaceChildren(planGate(id, d, seen));
      else if (d.gate === "final") gate.replaceChildren(finalGate(id, d));
      else if (d.resumable) gate.replaceChildren(resumePanel(id, d));
      else if (d.status === "completed" && !d.live) gate.replaceChildren(askPanel(id));
      else gate.replaceChildren();
    }
    timeline.replaceChildren(
      h("div", { class: "grid" },
        h("div", {}, h("h3", {}, "Stage"), h("p", { id: "stage" }, part("status")), h("h3", {}, "Branches"), part("branches")),
        h("div", {}, h("h3", {}, "Budget"), part("budget"), h("h3", {}, "Cost"), part("cost"))),
      h("div", { id: "answers" }, part("answers")),
      h("h3", {}, "Review rounds"),
      d.fragments && d.fragments.reviews ? h("div", { id: "reviews" }, part("reviews")) : h("p", { class: "muted" }, "no review yet"));
  }

  const source = new EventSource(`/api/runs/${id}/events`);
  const trouble = h("p", { class: "error", id: "run-trouble", hidden: true });
  head.before(trouble);
  source.addEventListener("run", (ev) => { trouble.hidden = true; render(JSON.parse(ev.data)); });
  source.addEventListener("error", async () => {
    // say why the page stopped changing: no such run, a folder that cannot be read, or a server that does not answer
    try { await api("GET", `/api/runs/${encodeURIComponent(id)}`); return; } catch (e) {
      trouble.textContent = e.status ? e.message : "The server does not answer: it may have stopped. This page retries on its own.";
      trouble.hidden = false;
      if (e.status === 404) source.close();
    }
  });
  source.addEventListener("trace", (ev) => {
    events.append(...fragment(JSON.parse(ev.data).line, id));
    while (events.children.length > 500) events.firstChild.remove();
    events.scrollTop = events.scrollHeight;
  });
  cleanup.push(() => source.close());
}

// ---- routing ----------------------------------------------------------------------------------

async function route() {
  cleanup.forEach((f) => f());
  cleanup = [];
  if (!meta) {
    try { meta = await api("GET", "/api/meta"); } catch (e) { mount(h("p", { class: "error" }, e.message)); return; }
  }
  const m = /^#\/run\/([^/]+)$/.exec(location.hash);
  if (m) runPage(decodeURIComponent(m[1]));
  else if (location.hash === "#/new") newRunPage();
  else runsPage();
}

window.addEventListener("hashchange", route);
route();
