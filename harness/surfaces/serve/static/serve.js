// research serve: the runs list, the new-run form and the run page, on the JSON API (api.py).
// Every text from a run (questions, sources, drafts, defects) is put in the page as a text node
// (h() below, textContent): never as HTML.
"use strict";

const BUDGET_DIMS = ["llm_calls", "tokens", "searches", "wall_seconds", "usd"];
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
      h("td", {}, badge(r.status), r.live ? h("span", { class: "live" }, " ● live") : null,
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
  const refinement = plan.refinement && h("div", { id: "refinement" },
    h("h3", {}, `Refinement (revision ${plan.revision})`),
    h("blockquote", {}, plan.refinement.feedback || ""),
    h("table", {}, h("tbody", {}, (plan.refinement.changes || []).map((c) => h("tr", {}, h("td", {}, c.question_id), h("td", {}, badge(c.tag, c.tag)), h("td", {}, c.note || ""))))));
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

// ---- the report a sign-off prints, drawn from its Markdown as text nodes (never as HTML) ---------

const INLINE = /<a id="([a-z0-9_-]+)"><\/a>|\[([^\[\]\n]+)\]\(([^()\s]+)\)|\*\*([^*\n]+)\*\*|\*([^*\n]+)\*|`([^`\n]+)`/g;

function inline(text, ctx) {
  const out = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    last = m.index + m[0].length;
    if (m[1]) out.push(h("span", { "data-anchor": m[1] }));
    else if (m[2]) out.push(link(m[2], m[3], ctx));
    else if (m[4]) out.push(h("strong", {}, inline(m[4], ctx)));
    else if (m[5]) out.push(h("em", {}, inline(m[5], ctx)));
    else out.push(h("code", {}, m[6]));
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

function link(label, target, ctx) {
  const card = /^source-cards\/([a-z0-9][a-z0-9._-]*)\.json$/.exec(target);
  if (card) return h("a", { href: `/runs/${ctx.id}/${target}`, class: "cite", "data-card": card[1], onclick: (ev) => { ev.preventDefault(); ctx.show(card[1], label); } }, label);
  if (/^#[a-z0-9_-]+$/.test(target)) return h("a", { href: `/runs/${ctx.id}/`, class: "anchor", onclick: (ev) => {
    ev.preventDefault();
    const at = ctx.root.querySelector(`[data-anchor="${CSS.escape(target.slice(1))}"]`);
    if (at) at.scrollIntoView({ block: "center" });
  } }, label);
  // a file of the run (a snapshot, a source record) opens from the run folder; nothing else is a link
  if (/^(sources|source-cards)\/[a-z0-9][a-z0-9._-]*$/.test(target)) return h("a", { href: `/runs/${ctx.id}/${target}`, target: "_blank", rel: "noopener" }, label);
  return label;
}

function markdown(text, ctx) {
  const blocks = [];
  let para = null, list = null, pre = null;
  const close = () => { para = null; list = null; };
  for (const line of text.split("\n")) {
    if (pre) {
      if (/^```/.test(line)) pre = null; else pre.append(line + "\n");
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const item = /^\s{0,3}[-*+]\s+(.*)$/.exec(line);
    if (/^```/.test(line)) { close(); pre = h("pre", { class: "md-code" }); blocks.push(pre); }
    else if (!line.trim()) close();
    else if (/^(-{3,}|\*{3,})\s*$/.test(line)) { close(); blocks.push(h("hr")); }
    else if (heading) { close(); blocks.push(h("h" + Math.min(6, heading[1].length + 3), { class: "md-h" }, inline(heading[2], ctx))); }
    else if (/^\s*\|/.test(line)) {  // a table: its first row the head, its |---| row skipped
      const cells = line.trim().replace(/^\|/, "").replace(/\|$/, "").split(/(?<!\\)\|/).map((c) => c.trim());
      if (!para || para.tagName !== "TABLE") { close(); para = h("table", { class: "md-table" }, h("thead"), h("tbody")); blocks.push(para); }
      const head = !para.tHead.rows.length;
      if (cells.every((c) => /^:?-{2,}:?$/.test(c))) continue;
      (head ? para.tHead : para.tBodies[0]).append(h("tr", {}, cells.map((c) => h(head ? "th" : "td", {}, inline(c, ctx)))));
    } else if (item) {
      if (!list) { para = null; list = h("ul"); blocks.push(list); }
      list.append(h("li", {}, inline(item[1], ctx)));
    } else if (list && /^\s+/.test(line)) list.lastChild.append(h("br"), ...inline(line.trim(), ctx));
    else if (para && para.tagName === "P") para.append(" ", ...inline(line.trim(), ctx));
    else { list = null; para = h("p", {}, inline(line.trim(), ctx)); blocks.push(para); }
  }
  return blocks;
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
  const ctx = { id, root: report, show: (cardId, label) => {
    const q = (d.draft.quotes || {})[cardId];
    panel.replaceChildren(...(q ? quotePanel(q, label) : [h("p", { class: "error" }, `card ${cardId}: not found in this run`)]));
    panel.hidden = false;
    panel.scrollIntoView({ block: "nearest" });
  } };
  if (d.draft.report) report.append(...markdown(d.draft.report, ctx));
  else report.append(h("p", { class: "error", id: "report-error" }, "This draft cannot be rendered as a report: ", d.draft.report_error || ""));
  return h("section", { class: "panel gate", id: "final-gate" },
    h("h3", {}, "Final gate: ", d.draft.path),
    h("p", {}, "sha256 ", h("code", { class: "sha", id: "draft-sha" }, d.draft.sha256)),
    h("p", { class: "muted" }, "The report as final-report.md will hold it once signed. A citation opens its card's quote in the source."),
    h("div", { class: "cols" }, report, panel),
    h("details", { id: "draft-as-written" }, h("summary", {}, "The draft as written"), h("pre", { class: "draft" }, d.draft.text || "")),
    err, sign);
}

function resumePanel(id, d) {
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

const LLM_DIMS = ["llm_calls", "tokens"];

function meters(budget, engines) {
  // model calls and tokens only where a model runs: an offline run spends neither
  const spent = (budget && budget.spent) || {};
  const limits = (budget && budget.limits) || {};
  // dollars appear as a meter only under a dollar limit; what was spent is in the cost panel (or price unknown)
  const llm = !engines || engines.some((e) => e !== "offline");
  const shown = BUDGET_DIMS.filter((dim) => (dim !== "usd" || (limits.usd !== null && limits.usd !== undefined)) && (llm || !LLM_DIMS.includes(dim)));
  return h("table", { id: "budget" }, h("tbody", {}, shown.map((dim) => {
    const s = Number(spent[dim] || 0);
    const l = limits[dim];
    return h("tr", { "data-dim": dim }, h("td", {}, dim.replace(/_/g, " ")),
      h("td", {}, l ? h("meter", { min: 0, max: l, value: Math.min(s, l), high: l * 0.8 }) : null),
      h("td", {}, `${amount(dim, s)} / ${l === null || l === undefined ? "∞" : amount(dim, l)}`));
  })));
}

// A budget figure: seconds to a tenth, dollars as dollars (the server's cost line says when a price is unknown).
function amount(dim, v) {
  if (dim === "wall_seconds") return Number(v).toFixed(1);
  if (dim === "usd") return "$" + Number(v).toFixed(v && v < 0.01 ? 4 : 2);
  return v;
}

// The run's cost: its line (dollars in all and per verified claim, tokens) and dollars per role.
function costPanel(cost) {
  if (!cost) return null;
  const rows = Object.entries(cost.roles || {}).filter(([, r]) => r.delegations).map(([role, r]) =>
    h("tr", { "data-role": role }, h("td", {}, role), h("td", {}, String(r.llm_calls)), h("td", {}, String(r.tokens)),
      h("td", {}, String(r.cached_tokens || 0)), h("td", {}, (cost.shown || {})[role] || "")));
  return h("div", { id: "cost" }, h("p", {}, cost.line || ""),
    h("table", {}, h("thead", {}, h("tr", {}, ["role", "model calls", "tokens", "cached", "dollars"].map((t) => h("th", {}, t)))),
      h("tbody", {}, rows)));
}

function traceLine(e) {
  const what = e.status || e.decision || e.path || e.delegation_id || "";
  const extra = e.event === "delegation" ? ` ${e.stop_reason || ""}` : "";
  return h("li", { "data-event": e.event }, `${(e.ts || "").slice(11, 19)} ${e.event} ${e.agent || ""} ${what}${extra}`);
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
    head.replaceChildren(...[
      h("h2", {}, d.question),
      h("p", {}, "status ", badge(d.status), d.live ? h("span", { class: "live", id: "live" }, " ● working") : null,
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
        h("div", {}, h("h3", {}, "Stage"), h("p", { id: "stage" }, badge(d.status)),
          h("h3", {}, "Branches"),
          d.branches.length ? h("table", { id: "branches" }, h("tbody", {}, d.branches.map((b) => h("tr", { "data-qid": b.id },
            h("td", {}, b.id), h("td", {}, b.text), h("td", {}, b.status ? badge(b.status) : h("span", { class: "muted" }, "pending")),
            h("td", { class: "cards" }, `${b.cards} card(s)`))))) : h("p", { class: "muted" }, "no branches yet")),
        h("div", {}, h("h3", {}, "Budget"), meters(d.budget, d.engines), h("h3", {}, "Cost"), costPanel(d.cost))),
      h("div", { id: "answers" }, d.answers ? [
        h("h3", {}, `Answers: ${d.answers.answered}/${d.answers.questions_total} answered (the answer check)`),
        h("table", {}, h("tbody", {}, d.answers.questions.map((a) => h("tr", { "data-qid": a.question_id },
          h("td", {}, a.question_id), h("td", {}, badge(a.verdict)), h("td", {}, a.reason),
          h("td", { class: "muted" }, a.reviewer ? `model reviewer: ${a.reviewer.verdict}` : "")))))] : []),
      h("h3", {}, "Review rounds"),
      d.reviews.length ? h("div", { id: "reviews" }, d.reviews.map((r) => h("div", { class: "review" },
        h("p", {}, h("strong", {}, r.path), " on ", r.draft || "?", " ", badge(r.verdict), ` ${r.defects.length} defect(s)`),
        r.defects.length ? h("ul", { class: "defects" }, r.defects.map((x) => h("li", {}, badge(x.severity), " ", h("code", {}, x.code), " ", x.message || ""))) : null)))
        : h("p", { class: "muted" }, "no review yet"));
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
    events.append(traceLine(JSON.parse(ev.data)));
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
