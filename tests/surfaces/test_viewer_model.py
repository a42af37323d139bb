"""The viewer's view models (harness/surfaces/viewer/model/): `collect()` reads a run folder into a typed `RunView`,
a record that is malformed still reads (its bad fields as None), statuses outside their `Literal` read as None, and
`as_json()` is JSON the app can return."""

from __future__ import annotations

import json

from fakes.workspaces import CARD_ID, SOURCE_ID
from harness.surfaces.viewer import render_viewer
from harness.surfaces.viewer.collect import collect
from harness.surfaces.viewer.model import Card, Claim, Question, RunView, SourceRecord


def test_collect_reads_a_workspace_into_typed_records(built_ws):
    view = collect(built_ws.root)
    assert isinstance(view, RunView)
    assert view.plan is not None
    assert [(q.id, q.kind) for q in view.plan.questions] == [("Q1", "research"), ("Q2", "deliverable")]
    assert [c.id for c in view.cards] == [CARD_ID] and view.cards[0].source_id == SOURCE_ID
    assert [(c.claim_id, c.status, c.supporting_cards) for c in view.claims] == [("C1", "verified", [CARD_ID])]
    assert [s.id for s in view.sources] == [SOURCE_ID] and isinstance(view.sources[0].record, SourceRecord)
    assert [(d.path, d.number) for d in view.drafts] == [("drafts/draft-1.md", 1)]
    assert [(r.path, r.verdict, r.draft_number) for r in view.reviews] == [("reviews/review-1.json", "pass", 1)]
    assert view.facts.question == "How does asyncio.TaskGroup handle failures?" and view.facts.cards == 1
    assert view.question_ids() == ["Q1", "Q2"] and list(view.claims_by_card()) == [CARD_ID]


def test_malformed_records_read_with_their_bad_fields_as_none(built_ws):
    root = built_ws.root
    (root / "source-cards" / f"{CARD_ID}.json").write_text("[1, 2]", encoding="utf-8")
    (root / "claims.json").write_text(
        json.dumps({"claims": ["junk", {"claim_id": 7, "status": "maybe", "supporting_cards": ["c-x", 3]}]}),
        encoding="utf-8",
    )
    plan = json.loads((root / "plan.json").read_text(encoding="utf-8"))
    plan["questions"] = ["junk", {"id": 5, "kind": "other", "criteria": "abc", "critical": 1}]
    (root / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
    (root / "reviews" / "review-1.json").write_text("{not json", encoding="utf-8")
    view = collect(root)
    assert view.cards == [Card(CARD_ID, None, None, None, None, None, [], None, None, None, readable=False)]
    assert view.claims == [Claim(None, None, None, None, ["c-x"], [], [])]
    assert view.plan is not None
    assert view.plan.questions == [Question(None, None, None, None, True, [], [], [], None)]
    assert [(r.path, r.verdict, r.defects) for r in view.reviews] == [("reviews/review-1.json", None, [])]
    html = render_viewer(root)  # and the page still renders
    assert f'id="v-card-{CARD_ID}"' in html and "reviews/review-1.json" in html


def test_as_json_is_the_typed_view_as_json(built_ws):
    view = collect(built_ws.root).linked("/#/run/x")
    out = json.loads(json.dumps(view.as_json()))
    assert out["app_link"] == "/#/run/x"
    assert out["claims"][0]["claim_id"] == "C1" and out["cards"][0]["id"] == CARD_ID
    assert out["plan"]["questions"][0]["id"] == "Q1" and out["facts"]["run_id"] == built_ws.root.name
    assert out["cards"][0]["start"] is not None and out["cards"][0]["readable"] is True


def test_the_page_embeds_the_typed_view_the_app_returns(built_ws):
    """viewer.js reads the same view as GET /api/runs/{id} returns (no second, untyped shape of the run)."""
    import re

    from harness.surfaces.viewer.page import embed_json

    view = collect(built_ws.root)
    html = render_viewer(built_ws.root)
    embedded = re.search(r'<script type="application/json" id="v-data">(.*?)</script>', html, re.S)
    assert embedded is not None and embedded.group(1) == embed_json(view.as_json())
    assert not hasattr(view, "data")
