/* The research run viewer: filters and the evidence panel.
 *
 * The page itself is rendered (and escaped) by the harness; this script only adds
 * behaviour. It reads the run's typed view (RunView.as_json(), the same the app's
 * GET /api/runs/{id} returns as `view`) from the JSON block #v-data and builds every
 * node with createElement/textContent: text from sources and models is never parsed
 * as HTML here.
 */
(function () {
  "use strict";

  var view = JSON.parse(document.getElementById("v-data").textContent);
  var cardsById = new Map(view.cards.map(function (c) { return [c.id, c]; }));
  var sourcesById = new Map(view.sources.map(function (s) { return [s.id, s]; }));
  var panel = document.getElementById("v-panel");
  var panelBody = document.getElementById("v-panel-body");
  var CARD_ID = /^[a-z0-9][a-z0-9._-]*$/;

  // ---- building nodes -------------------------------------------------------------

  function h(tag, attrs, kids) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      var value = attrs[key];
      if (value === null || value === undefined || value === false) return;
      if (key === "class") node.className = value;
      else node.setAttribute(key, value === true ? "" : String(value));
    });
    (kids || []).forEach(function (kid) {
      if (kid === null || kid === undefined || kid === "") return;
      node.appendChild(typeof kid === "object" ? kid : document.createTextNode(String(kid)));
    });
    return node;
  }

  function badge(text, kind) {
    var cls = String(kind === undefined ? text : kind).toLowerCase().replace(/[^a-z0-9_-]/g, "") || "none";
    return h("span", { "class": "badge b-" + cls }, [String(text).replace(/_/g, " ")]);
  }

  function cardLink(cardId, label) {
    return h("a", { href: CARD_ID.test(cardId) ? "source-cards/" + cardId + ".json" : null, "class": "card-link" }, [label || cardId]);
  }

  // ---- looking things up ----------------------------------------------------------------

  function claimById(id) {
    return view.claims.filter(function (c) { return c.claim_id === id; })[0] || null;
  }

  function claimsOfCard(cardId) {
    return view.claims.filter(function (c) {
      return c.supporting_cards.indexOf(cardId) >= 0 || c.contradicting_cards.indexOf(cardId) >= 0;
    });
  }

  // ---- the panel ------------------------------------------------------------------------

  function openPanel(nodes) {
    panelBody.textContent = "";
    nodes.forEach(function (n) { if (n) panelBody.appendChild(n); });
    panel.hidden = false;
    document.body.classList.add("panel-open");
    panel.scrollTop = 0;
    var mark = panelBody.querySelector("mark.quote");
    if (mark) {
      var pre = mark.parentNode;
      pre.scrollTop = Math.max(0, mark.offsetTop - pre.clientHeight / 3);
      mark.scrollIntoView({ block: "nearest", inline: "nearest" });
    }
  }

  function closePanel() {
    panel.hidden = true;
    document.body.classList.remove("panel-open");
  }

  function sourceHeader(sourceId, record) {
    record = record || { flags: [] };
    var flags = record.flags;
    var locator = record.url || [record.corpus, record.path].filter(Boolean).join(":");
    return h("div", { "class": "source-head" }, [
      h("div", null, [h("strong", null, [sourceId]), " ", record.kind ? badge(record.kind) : null, " ",
        record.flagged ? badge("⚠ flagged", "flagged") : null, " ",
        h("a", { href: "sources/" + sourceId + ".txt", "data-raw": true, target: "_blank", rel: "noopener" }, ["raw snapshot"])]),
      h("div", null, [record.title || ""]),
      locator ? h("div", { "class": "sub" }, [h("code", null, [locator])]) : null,
      flags.length ? h("ul", { "class": "flags" }, flags.map(function (f) {
        return h("li", null, [(f.reason || f.code) + (typeof f.offset === "number" ? " at " + f.offset + (typeof f.end === "number" ? "–" + f.end : "") : "") + ": “" + f.excerpt + "”"]);
      })) : null
    ]);
  }

  // The snapshot, with the card's quote marked and every flagged (instruction-like) sentence marked
  // as such: the source view is the one place flagged text is shown, always marked.
  function sourceText(text, highlight, flags) {
    var pre = h("pre", { "class": "source-text" });
    if (typeof text !== "string") {
      pre.appendChild(document.createTextNode("(the text snapshot is missing)"));
      return pre;
    }
    var spans = [];
    flags.forEach(function (f) {
      if (typeof f.offset !== "number") return;
      var end = typeof f.end === "number" ? f.end : f.offset + String(f.excerpt || "").length;
      if (f.offset < end && end <= text.length) {
        spans.push({ start: f.offset, end: end, attrs: { "class": "flagged", title: "flagged: " + (f.reason || f.code) } });
      }
    });
    if (highlight && highlight.start < highlight.end && highlight.end <= text.length) {
      spans.push({ start: highlight.start, end: highlight.end, attrs: { "class": "quote", id: "v-mark" } });
    }
    spans.sort(function (a, b) { return a.start - b.start; });
    var pos = 0;
    spans.forEach(function (sp) {
      var start = Math.max(sp.start, pos);
      if (sp.end <= start) return;
      pre.appendChild(document.createTextNode(text.slice(pos, start)));
      pre.appendChild(h("mark", sp.attrs, [text.slice(start, sp.end)]));
      pos = sp.end;
    });
    pre.appendChild(document.createTextNode(text.slice(pos)));
    return pre;
  }

  function cardDetail(cardId) {
    var card = cardsById.get(cardId);
    if (!card || !card.readable) return h("p", { "class": "empty" }, ["Card " + cardId + " is not in source-cards/."]);
    var source = sourcesById.get(card.source_id) || {};
    return h("div", { "class": "card-detail", "data-card": cardId }, [
      h("h4", null, ["Card ", cardLink(cardId), " ", card.confidence ? badge(card.confidence, "conf-" + card.confidence) : null]),
      card.evidence_summary ? h("p", null, [card.evidence_summary]) : null,
      card.limitations.length ? h("ul", { "class": "limits" }, card.limitations.map(function (l) { return h("li", null, [l]); })) : null,
      h("blockquote", { "class": "recorded-quote" }, ["“" + (card.quote || "") + "”"]),
      h("p", { "class": "sub" }, ["question " + (card.question_id || "?") + " · characters " + card.start + "–" + card.end +
        " of " + card.source_id + (card.highlight ? "" : " (span not found in the snapshot)")]),
      sourceHeader(card.source_id, source.record),
      sourceText(source.text, card.highlight, source.record ? source.record.flags : [])
    ]);
  }

  function openClaim(claimId, focusCard) {
    var claim = claimById(claimId);
    if (!claim) {
      openPanel([h("p", { "class": "empty" }, ["Claim " + claimId + " is not in claims.json."])]);
      return;
    }
    var cards = claim.supporting_cards.map(function (c) { return [c, "supports"]; })
      .concat(claim.contradicting_cards.map(function (c) { return [c, "contradicts"]; }));
    var focus = focusCard && cards.some(function (c) { return c[0] === focusCard; }) ? focusCard : (cards[0] || [null])[0];
    var list = h("ul", { "class": "card-list" }, cards.map(function (c) {
      var link = cardLink(c[0]);
      if (c[0] === focus) link.setAttribute("aria-current", "true");
      return h("li", null, [link, " ", badge(c[1], "side-" + c[1])]);
    }));
    openPanel([
      h("h3", null, ["Claim " + claim.claim_id + " ", badge(claim.status || "?"), " ",
        h("span", { "class": "sub" }, ["question " + (claim.question_id || "?")])]),
      h("p", { "class": "statement" }, [claim.statement || ""]),
      claim.limitations.length ? h("ul", { "class": "limits" }, claim.limitations.map(function (l) { return h("li", null, [l]); })) : null,
      cards.length ? list : h("p", { "class": "empty" }, ["No evidence cards."]),
      focus ? cardDetail(focus) : null
    ]);
  }

  function openCard(cardId, claimId) {
    var owners = claimsOfCard(cardId);
    var claim = (claimId && claimById(claimId)) || owners[0];
    if (claim && claimsOfCard(cardId).indexOf(claim) >= 0) openClaim(claim.claim_id, cardId);
    else openPanel([h("h3", null, ["Card not used by any claim"]), cardDetail(cardId)]);
  }

  function openSource(sourceId) {
    var source = sourcesById.get(sourceId);
    if (!source) {
      openPanel([h("p", { "class": "empty" }, ["Source " + sourceId + " is not in sources/."])]);
      return;
    }
    var cards = view.cards.filter(function (c) { return c.readable && c.source_id === sourceId; })
      .map(function (c) { return c.id; });
    openPanel([
      h("h3", null, ["Source"]),
      sourceHeader(sourceId, source.record),
      cards.length ? h("p", null, ["Cards quoting it: "].concat(cards.map(function (c) { return cardLink(c); }))) : h("p", { "class": "sub" }, ["No card quotes this source."]),
      sourceText(source.text, null, source.record ? source.record.flags : [])
    ]);
  }

  // ---- routing clicks on links -----------------------------------------------------------

  document.addEventListener("click", function (ev) {
    if (ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    var a = ev.target && ev.target.closest ? ev.target.closest("a[href]") : null;
    if (!a || a.hasAttribute("data-raw")) return;
    var href = a.getAttribute("href");
    var m;
    if ((m = /^source-cards\/([a-z0-9][a-z0-9._-]*)\.json$/.exec(href))) {
      var label = /^C[1-9][0-9]*/.exec(a.textContent || "");
      openCard(m[1], label ? label[0] : null);
    } else if ((m = /^#r-c([1-9][0-9]*)$/.exec(href))) {
      openClaim("C" + m[1]);
    } else if ((m = /^#v-claim-(C[1-9][0-9]*)$/.exec(href))) {
      openClaim(m[1]);
    } else if ((m = /^sources\/(src-[0-9a-f]{12})\.(?:txt|json)$/.exec(href))) {
      openSource(m[1]);
    } else {
      return;
    }
    ev.preventDefault();
  });

  document.getElementById("v-panel-close").addEventListener("click", closePanel);
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && !panel.hidden) closePanel();
  });

  // ---- filters ------------------------------------------------------------------------------

  var filters = document.getElementById("v-filters");
  var byStatus = document.getElementById("v-f-status");
  var byQuestion = document.getElementById("v-f-question");
  var count = document.getElementById("v-f-count");

  function tokens(value) {
    return (value || "").split(" ").filter(Boolean);
  }

  function applyFilters() {
    var status = byStatus.value;
    var question = byQuestion.value;
    var shown = 0;
    var rows = document.querySelectorAll("#v-evidence tr.filterable");
    rows.forEach(function (row) {
      var ok = (!status || tokens(row.getAttribute("data-status")).indexOf(status) >= 0) &&
        (!question || tokens(row.getAttribute("data-question")).indexOf(question) >= 0);
      row.hidden = !ok;
      if (ok) shown += 1;
    });
    count.textContent = status || question ? "showing " + shown + " of " + rows.length + " rows" : "";
  }

  if (filters) {
    filters.hidden = false;
    byStatus.addEventListener("change", applyFilters);
    byQuestion.addEventListener("change", applyFilters);
  }
})();
