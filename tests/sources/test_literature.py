"""The literature providers (arXiv through `arxiv`, OpenAlex through `pyalex`, Crossref through `habanero`), each
through its own client against a local stand-in of its API on 127.0.0.1 (fakes/scholarly.py): search and metadata,
an open-access PDF fetched and quoted, an abstract-only source, the same paper from two providers merged, a retracted
work flagged."""

from __future__ import annotations

import dataclasses
import json

import pytest

from fakes.scholarly import ELECTION, RETRACTED, TIMEOUTS, literature
from fakes.sites import Reply
from fakes.workspaces import make_plan
from harness.contract.layout import card_path
from harness.contract.works import ABSTRACT_ONLY_LIMITATION, RETRACTED_LIMITATION, csl_item, work_keys
from harness.errors import PermissionRefused, UsageError
from harness.runtime.budget import Budget, DelegationBudget
from harness.runtime.context import open_context
from harness.runtime.interface import Brief
from harness.runtime.step import RunServices
from harness.sources.registry import SourceRegistry
from harness.sources.search import SearchFailed, SearchSettings, make_provider, preflight
from harness.sources.web import WebPolicy, WebTools
from harness.sources.web.cache import PageCache
from harness.workspace.store import Workspace
from harness.workspace.validate import validate_workspace

OPEN = WebPolicy(allowed_domains=())


@pytest.fixture(autouse=True)
def local_only(monkeypatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.delenv("OPENALEX_API_KEY", raising=False)


@pytest.fixture
def ws(tmp_path, specs):
    ws = Workspace.create(tmp_path / "runs", "How do replicated state machines elect a leader?")
    ws.write("plan.json", make_plan(), specs["planner"].policy)
    return ws


def tools(ws, tmp_path, settings: SearchSettings, open_web: bool = True) -> WebTools:
    return WebTools(
        SourceRegistry(ws),
        allow_private=True,
        timeout=5.0,
        cache=PageCache(root=tmp_path / "web-cache", ttl=3600.0),
        search=make_provider(settings),
        open_web=open_web,
    )


def settings(lit, *names: str, **options) -> SearchSettings:
    api = {"semanticscholar": "s2"}
    opts = {name: {"url": lit.api(api.get(name, name)), **options.get(name, {})} for name in names}
    return SearchSettings(names[0], None, None, tuple(names[1:]), opts)


# ---- search and metadata, each through its own client ------------------------------------------------------------


def test_arxiv_search_reads_the_feed_into_works():
    with literature() as lit:
        (hit,) = make_provider(SearchSettings("arxiv", lit.api("arxiv"))).search("leader election", 5)
    assert lit.requests["arxiv"][0].startswith("/arxiv/query?search_query=leader+election")
    assert (hit.url, hit.provider, hit.rank, hit.query) == (
        "https://arxiv.org/abs/2401.00001",
        "arxiv",
        1,
        "leader election",
    )
    assert hit.work == {
        "arxiv_id": "2401.00001",
        "doi": ELECTION.doi,
        "title": ELECTION.title,
        "authors": [{"family": "Lovelace", "given": "Ada"}, {"family": "Turing", "given": "Alan"}],
        "year": 2024,
        "open_access": True,
        "url": "https://arxiv.org/abs/2401.00001",
        "retracted": False,
    }
    assert hit.text == ELECTION.abstract and hit.full_text_url == lit.pdf_url(ELECTION)


def test_openalex_search_reads_works_with_their_open_access_copy_and_retraction():
    with literature() as lit:
        hits = make_provider(SearchSettings("openalex", lit.api("openalex"))).search("leader election", 5)
    assert lit.requests["openalex"] == ["/openalex/works?search=leader+election&per-page=5"]
    election, timeouts, lottery = hits
    assert election.url == f"https://doi.org/{ELECTION.doi}" and election.work["arxiv_id"] == "2401.00001"
    assert (election.work["venue"], election.work["license"], election.work["oa_status"]) == (
        ELECTION.venue,
        "cc-by",
        "green",
    )
    assert election.full_text_url == lit.pdf_url(ELECTION) and election.text == ELECTION.abstract
    assert timeouts.full_text_url is None and timeouts.work["open_access"] is False
    assert lottery.work["retracted"] is True and not timeouts.work["retracted"]


def test_crossref_search_reads_items_and_a_retraction_notice():
    with literature() as lit:
        timeouts, lottery = make_provider(SearchSettings("crossref", lit.api("crossref"))).search("votes", 3)
    assert lit.requests["crossref"] == ["/crossref/works?query=votes&rows=3"]
    assert timeouts.work["doi"] == TIMEOUTS.doi  # lower-cased: Crossref sent it upper case
    assert timeouts.work["authors"] == [{"family": "Hopper", "given": "Grace"}]
    assert (timeouts.work["year"], timeouts.work["venue"]) == (2021, TIMEOUTS.venue)
    assert timeouts.text == TIMEOUTS.abstract  # JATS markup and its "Abstract" heading dropped
    assert lottery.work["retracted"] is True and timeouts.work["retracted"] is False


def test_semantic_scholar_search_reads_the_first_page_of_papers(monkeypatch):
    monkeypatch.delenv("SEMANTIC_SCHOLAR_API_KEY", raising=False)
    with literature() as lit:
        election, timeouts = make_provider(SearchSettings("semanticscholar", lit.api("s2"))).search("votes", 5)
    (path,) = lit.requests["s2"]
    assert path.startswith("/s2/graph/v1/paper/search?query=votes") and "limit=5" in path
    assert (election.url, election.work["arxiv_id"], election.work["venue"]) == (
        f"https://doi.org/{ELECTION.doi}",
        "2401.00001",
        ELECTION.venue,
    )
    assert election.full_text_url == lit.pdf_url(ELECTION) and election.work["license"] == "cc-by"
    assert timeouts.full_text_url is None and timeouts.text == TIMEOUTS.abstract
    assert timeouts.work["authors"] == [{"family": "Hopper", "given": "Grace"}]


def test_pubmed_search_reads_esearch_then_efetch(monkeypatch):
    monkeypatch.delenv("NCBI_API_KEY", raising=False)
    with literature() as lit:
        options = {"pubmed": {"email": "test@example.org"}}
        timeouts, lottery = make_provider(SearchSettings("pubmed", lit.api("pubmed"), options=options)).search(
            "votes", 5
        )
    search, fetch = lit.requests["pubmed"]
    assert search.startswith("/pubmed/esearch.fcgi?db=pubmed&term=votes&retmax=5&retmode=json&tool=research-harness")
    assert "email=test%40example.org" in search and "id=1001%2C1002" in fetch
    assert (timeouts.url, timeouts.work["pmid"], timeouts.work["doi"]) == (
        "https://pubmed.ncbi.nlm.nih.gov/1001/",
        "1001",
        TIMEOUTS.doi,
    )
    assert (timeouts.work["year"], timeouts.work["venue"], timeouts.text) == (2021, TIMEOUTS.venue, TIMEOUTS.abstract)
    assert timeouts.full_text_url is None and timeouts.work["authors"] == [{"family": "Hopper", "given": "Grace"}]
    assert lottery.work["retracted"] is True and timeouts.work["retracted"] is False


def test_a_provider_that_fails_is_a_search_failure_naming_it():
    with literature() as lit:
        url = lit.site.url("/nowhere")
        for name in ("arxiv", "openalex", "crossref", "semanticscholar", "pubmed"):
            with pytest.raises(SearchFailed, match=rf"^{name} search failed"):
                make_provider(SearchSettings(name, url)).search("q", 3)


def test_several_providers_are_interleaved_by_rank():
    with literature() as lit:
        hits = make_provider(settings(lit, "arxiv", "openalex")).search("leader election", 5)
    # OpenAlex's first hit is arXiv's paper (under its DOI): merged into arXiv's
    assert [(h.provider, h.rank) for h in hits] == [("arxiv", 1), ("openalex", 2), ("openalex", 3)]


def test_the_preflight_names_what_is_wrong_in_one_line(monkeypatch):
    with pytest.raises(UsageError, match=r"^--search arxiv,arxiv: a provider is named twice"):
        preflight(SearchSettings("arxiv", None, None, ("arxiv",)))
    with pytest.raises(UsageError, match=r"^--search-url: several providers are searched"):
        preflight(SearchSettings("arxiv", "http://127.0.0.1:9", None, ("openalex",)))
    with pytest.raises(UsageError, match=r"^research.yaml search.providers.openalex.key_env: OA_KEY is not set"):
        preflight(SearchSettings("openalex", options={"openalex": {"key_env": "OA_KEY"}}))
    monkeypatch.setenv("OA_KEY", "secret")
    preflight(SearchSettings("openalex", options={"openalex": {"key_env": "OA_KEY"}}))
    preflight(SearchSettings("openalex"))  # the key is optional


# ---- papers as sources ------------------------------------------------------------------------------------


def test_an_open_access_pdf_is_the_snapshot_and_its_work_is_on_the_record(ws, tmp_path):
    with literature() as lit:
        web = tools(ws, tmp_path, settings(lit, "arxiv"))
        (result,) = web.search_and_fetch("leader election", 3, OPEN, "Q1")
    page = result.page
    assert "A candidate becomes the leader once a majority" in page.text
    record = web.registry.record(page.source_id)
    work = record["work"]
    assert (work["provider"], work["query"], work["abstract_only"]) == ("arxiv", "leader election", False)
    assert record["title"] == ELECTION.title and record["url"] == lit.pdf_url(ELECTION)
    assert record["web"]["content_type"] == "application/pdf"
    assert record["csl"] == csl_item(work, page.source_id)
    assert record["csl"]["author"][0] == {"family": "Lovelace", "given": "Ada"}
    assert validate_workspace(ws.root) == []


def test_a_pdf_that_cannot_be_read_leaves_the_abstract_marked_abstract_only(ws, tmp_path):
    with literature(pdf_reply=Reply(404, "text/plain", b"gone")) as lit:
        web = tools(ws, tmp_path, settings(lit, "arxiv"))
        (result,) = web.search_and_fetch("leader election", 3, OPEN, "Q1")
    assert result.page.text == ELECTION.abstract
    record = web.registry.record(result.page.source_id)
    assert record["work"]["abstract_only"] is True and record["web"]["text_from"] == "provider"
    assert record["url"] == "https://arxiv.org/abs/2401.00001"


def test_a_card_quoting_an_abstract_or_a_retracted_work_says_so(ws, tmp_path, specs):
    with literature() as lit:
        web = tools(ws, tmp_path, settings(lit, "crossref"))
        timeouts, lottery = web.search_and_fetch("votes", 3, OPEN, "Q1")
    spec = specs["researcher"]
    brief = Brief("researcher", "research Q1", outputs=("source-cards/",), question_id="Q1")
    budget = DelegationBudget(Budget({}, {spec.role: {}}), spec.role, spec.limits, None)
    ctx = open_context(ws, spec, brief, engine="llm", model="fake", run_id=ws.run_id, budget=budget)
    quote = "a single server usually wins the election"
    card_id, _where, _new = ctx.services.record_evidence(timeouts.page.source_id, quote, "timeouts", "medium")
    card = ws.reader().read_json(card_path(card_id))
    assert card["limitations"] == [ABSTRACT_ONLY_LIMITATION]
    card_id, _w, _n = ctx.services.record_evidence(
        lottery.page.source_id, "elect their leader by a lottery", "x", "low"
    )
    card = ws.reader().read_json(card_path(card_id))
    assert card["limitations"] == [ABSTRACT_ONLY_LIMITATION, RETRACTED_LIMITATION]
    assert web.registry.record(lottery.page.source_id)["work"]["retracted"] is True
    from harness.sources.web.display import format_searched

    shown = format_searched([timeouts, lottery], "votes")
    assert shown.count("paper='abstract only'") == 2 and shown.count("retracted='true'") == 1


def test_the_same_paper_from_two_providers_is_one_source(ws, tmp_path):
    with literature() as lit:
        web = tools(ws, tmp_path, settings(lit, "arxiv", "openalex"))
        hits = web.provider.search("leader election", 5)
        (result,) = web.search_and_fetch("leader election", 1, OPEN, "Q1")
        # found by one search of OpenAlex alone, under its DOI: the same source as arXiv's
        alone = tools(ws, tmp_path, settings(lit, "openalex"))
        again = alone.search_and_fetch("leader election", 1, OPEN, "Q1")[0]
    assert [h.url for h in hits][:2] == ["https://arxiv.org/abs/2401.00001", f"https://doi.org/{TIMEOUTS.doi}"]
    assert again.url == f"https://doi.org/{ELECTION.doi}" and again.page.source_id == result.page.source_id
    record = web.registry.record(result.page.source_id)
    assert record["work"]["provider"] == "arxiv" and len(SourceRegistry(ws).ids()) == 1


def test_a_retraction_only_the_second_provider_knows_is_recorded(ws, tmp_path):
    not_retracted = RETRACTED.__class__(**{**RETRACTED.__dict__, "retracted": False})
    with literature(openalex=(not_retracted,)) as lit:
        web = tools(ws, tmp_path, settings(lit, "openalex", "crossref"))
        results = web.search_and_fetch("lottery", 5, OPEN, "Q1")
    lottery = {r.page.source_id for r in results if r.page.title == RETRACTED.title}
    (sid,) = lottery
    assert web.registry.record(sid)["work"]["retracted"] is True
    assert ws.reader().read_json(f"sources/{sid}.json")["work"]["retracted"] is True


# ---- every provider: a paper's full text, its abstract, its retraction -------------------------------------------

API = {"semanticscholar": "s2"}
FULL_TEXT = ("arxiv", "openalex", "crossref", "semanticscholar")  # PubMed holds abstracts only
ABSTRACT_ONLY = ("openalex", "crossref", "semanticscholar", "pubmed")  # arXiv's papers all have their PDF
RETRACTIONS = ("openalex", "crossref", "pubmed")  # arXiv and Semantic Scholar report none


def only(paper, name: str) -> dict:
    """literature() arguments listing `paper` alone at provider `name` (and nothing at the others)."""
    lists = {"arxiv": (), "openalex": (), "crossref": (), "s2": (), "pubmed": ()}
    return {**lists, API.get(name, name): (paper,)}


def one_source(ws, tmp_path, paper, name: str, specs, quote: str):
    with literature(**only(paper, name)) as lit:
        web = tools(ws, tmp_path, settings(lit, name))
        (result,) = web.search_and_fetch("leader election", 3, OPEN, "Q1")
    spec = specs["researcher"]
    brief = Brief("researcher", "research Q1", outputs=("source-cards/",), question_id="Q1")
    budget = DelegationBudget(Budget({}, {spec.role: {}}), spec.role, spec.limits, None)
    ctx = open_context(ws, spec, brief, engine="llm", model="fake", run_id=ws.run_id, budget=budget)
    card_id, _where, _new = ctx.services.record_evidence(result.page.source_id, quote, "what it says", "medium")
    return web.registry.record(result.page.source_id), ws.reader().read_json(card_path(card_id))


@pytest.mark.parametrize("name", FULL_TEXT)
def test_each_provider_s_open_access_pdf_is_fetched_and_quoted(ws, tmp_path, specs, name):
    quote = "Randomized election timeouts make split votes rare in practice."
    record, card = one_source(ws, tmp_path, ELECTION, name, specs, quote)
    assert record["work"]["abstract_only"] is False and record["web"]["content_type"] == "application/pdf"
    assert record["work"]["provider"] == name and record["csl"]["title"] == ELECTION.title
    assert card["quote"] == quote and ABSTRACT_ONLY_LIMITATION not in card["limitations"]
    assert validate_workspace(ws.root) == []


@pytest.mark.parametrize("name", ABSTRACT_ONLY)
def test_each_provider_s_abstract_stands_in_and_its_card_says_so(ws, tmp_path, specs, name):
    record, card = one_source(ws, tmp_path, TIMEOUTS, name, specs, "a single server usually wins the election")
    assert record["work"]["abstract_only"] is True and record["web"]["text_from"] == "provider"
    assert ABSTRACT_ONLY_LIMITATION in card["limitations"]
    assert validate_workspace(ws.root) == []


@pytest.mark.parametrize("name", RETRACTIONS)
def test_each_provider_s_retraction_is_flagged(ws, tmp_path, specs, name):
    record, card = one_source(ws, tmp_path, RETRACTED, name, specs, "elect their leader by a lottery")
    assert record["work"]["retracted"] is True and RETRACTED_LIMITATION in card["limitations"]


# ---- the identity rule ------------------------------------------------------------------------------------


def test_work_keys_read_dois_arxiv_ids_and_titles_alike():
    a = {"doi": "https://doi.org/10.48550/arXiv.2401.00001", "title": "Leader election, revisited!"}
    b = {"arxiv_id": "arXiv:2401.00001v3", "title": "LEADER ELECTION REVISITED"}
    assert work_keys(a) == ["doi:10.48550/arxiv.2401.00001", "arxiv:2401.00001", "title:leader election revisited"]
    assert set(work_keys(a)) & set(work_keys(b)) == {"arxiv:2401.00001", "title:leader election revisited"}
    assert work_keys({"title": "Introduction"}) == []  # too short to name one paper


def test_the_schemas_list_the_literature_providers_and_the_citation_styles_of_the_contract():
    from harness.contract.schemas import schema as load_schema
    from harness.contract.search import LITERATURE_PROVIDERS
    from harness.contract.works import CITATION_STYLES

    source = load_schema("source.schema.json")["properties"]["work"]["properties"]["provider"]["enum"]
    assert tuple(source) == LITERATURE_PROVIDERS
    config = load_schema("config.schema.json")["properties"]["citation_style"]["enum"]
    run = load_schema("run.schema.json")["properties"]["config"]["properties"]["citation_style"]["enum"]
    assert tuple(config) == tuple(run) == CITATION_STYLES


def test_pubmed_and_crossref_abstracts_of_the_same_papers_are_one_source_each_and_the_retraction_is_kept(ws, tmp_path):
    with literature() as lit:
        web = tools(ws, tmp_path, settings(lit, "pubmed", "crossref"))
        results = web.search_and_fetch("votes", 5, OPEN, "Q1")
    assert len(results) == 2 and len(web.registry.ids()) == 2  # Crossref's hits are PubMed's papers: merged
    for sid in {r.page.source_id for r in results}:
        work = web.registry.record(sid)["work"]
        assert work["provider"] == "pubmed" and work["abstract_only"] is True
        assert work["retracted"] is (work["title"] == RETRACTED.title)


def test_semantic_scholar_and_openalex_results_for_the_same_papers_are_the_same_sources(ws, tmp_path):
    with literature() as lit:
        web = tools(ws, tmp_path, settings(lit, "semanticscholar", "openalex"))
        results = web.search_and_fetch("leader election", 5, OPEN, "Q1")
    by_title: dict[str, set[str]] = {}
    for r in results:
        by_title.setdefault(r.page.title, set()).add(r.page.source_id)
    assert {t: len(ids) for t, ids in by_title.items()} == {ELECTION.title: 1, TIMEOUTS.title: 1, RETRACTED.title: 1}
    assert len(web.registry.ids()) == 3


# ---- research.yaml ------------------------------------------------------------------------------------------


def test_research_yaml_names_several_providers_and_their_settings_and_a_resume_reads_them_back(tmp_path):
    from harness.orchestrator.config import build_config, config_from_snapshot, search_settings

    question = "How do replicated state machines elect a leader?"
    providers = {"openalex": {"url": "http://127.0.0.1:9/oa", "email": "me@example.org"}}
    cfg = build_config(
        question,
        runs_dir=str(tmp_path),
        web=True,
        search="arxiv, openalex",
        config_data={"search": {"providers": providers}, "citation_style": "ieee"},
    )
    assert cfg.search == {"provider": "arxiv", "also": ["openalex"], "providers": providers}
    settings = search_settings(cfg)
    assert settings.names == ("arxiv", "openalex") and settings.only("openalex").url == "http://127.0.0.1:9/oa"
    back = config_from_snapshot(question, cfg.snapshot(), cfg.budget)
    assert search_settings(back) == settings and back.citation_style == "ieee"


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"search": {"providers": {"openalex": {"email": "not-an-email"}}}}, r"search.providers.openalex.email"),
        ({"search": {"providers": {"scholar": {"url": "http://x"}}}}, r"search.providers"),
        ({"search": {"providers": {"openalex": {"api_key": "secret"}}}}, r"search.providers.openalex"),
        ({"citation_style": "mla"}, r"citation_style"),
    ],
)
def test_bad_provider_settings_are_named_in_one_line_before_any_work(tmp_path, config, message):
    from harness.orchestrator.config import build_config

    with pytest.raises(UsageError, match=message) as caught:
        build_config("q?", runs_dir=str(tmp_path), web=True, search="openalex", config_data=config)
    assert "\n" not in str(caught.value)
    with pytest.raises(UsageError, match=r"^--citation-style mla: choose one of apa, ieee, chicago-author-date$"):
        build_config("q?", runs_dir=str(tmp_path), citation_style="mla")


# ---- the plan names the literature providers a question may search; no --web needed ------------------------------


def researcher(ws, specs, web: WebTools, allowed: list[str]):
    """A Researcher step on Q1 with the web tools (as `enable_web` gives them), Q1 allowing `allowed`."""
    plan = make_plan()
    plan["questions"][0]["allowed_sources"] = allowed
    ws.write("plan.json", plan, specs["planner"].policy)
    spec = dataclasses.replace(specs["researcher"], tools=(*specs["researcher"].tools, "web_search", "fetch_url"))
    brief = Brief("researcher", "research Q1", outputs=("source-cards/",), question_id="Q1")
    budget = DelegationBudget(Budget({}, {spec.role: {}}), spec.role, spec.limits, None)
    run = RunServices(web=web)
    return open_context(ws, spec, brief, engine="offline", model=None, run_id=ws.run_id, budget=budget, run=run)


def test_without_the_web_a_question_searches_the_literature_providers_its_plan_names_and_fetches_only_their_papers(
    ws, tmp_path, specs
):
    with literature() as lit:
        web = tools(ws, tmp_path, settings(lit, "arxiv", "openalex"), open_web=False)
        ctx = researcher(ws, specs, web, ["corpus", "arxiv"])
        results = ctx.services.web_search("leader election", 5)
        assert {r["provider"] for r in results} == {"arxiv"} and set(lit.requests) == {"arxiv"}
        paper = ctx.services.fetch_url(results[0]["url"])
        assert paper.work["provider"] == "arxiv" and paper.work["abstract_only"] is False
        spent = ctx.budget.left("searches")
        with pytest.raises(PermissionRefused, match=r"only the papers its literature searches found"):
            ctx.services.fetch_url("https://example.org/any-page")
        corpus_only = researcher(ws, specs, web, ["corpus"])
        with pytest.raises(
            PermissionRefused,
            match=r"^the plan allows corpus sources for Q1, not a literature provider \(this run offers arxiv, "
            r"openalex\); nothing was spent$",
        ):
            corpus_only.services.web_search("leader election", 5)
        both = researcher(ws, specs, web, ["arxiv", "openalex"])
        assert {r["provider"] for r in both.services.web_search("leader election", 5)} == {"arxiv", "openalex"}
    assert ctx.budget.left("searches") == spent


def test_with_the_web_a_question_allowing_one_provider_searches_that_one_and_fetches_no_other_page(ws, tmp_path, specs):
    with literature() as lit:
        web = tools(ws, tmp_path, settings(lit, "arxiv", "openalex"))
        ctx = researcher(ws, specs, web, ["openalex"])
        assert {r["provider"] for r in ctx.services.web_search("leader election", 5)} == {"openalex"}
        with pytest.raises(PermissionRefused, match=r"not web pages"):
            ctx.services.fetch_url("https://example.org/any-page")
        everything = researcher(ws, specs, web, ["web"])
        assert {r["provider"] for r in everything.services.web_search("leader election", 5)} == {"arxiv", "openalex"}


def test_the_sources_a_run_offers_and_a_question_may_search():
    from harness.contract.search import may_browse, offered_sources, run_offers, searchable

    assert offered_sources(False, ("arxiv", "openalex")) == ("corpus", "arxiv", "openalex")
    assert offered_sources(True, ("ddgs",)) == ("corpus", "web")
    assert run_offers({"web": False, "search": {"provider": "searxng", "also": ["pubmed"]}}) == ("corpus", "pubmed")
    assert run_offers({"web": False}) == ("corpus",)
    assert searchable(["corpus", "web"], ("ddgs", "arxiv"), web=False) == ()
    assert searchable(["corpus", "web"], ("ddgs", "arxiv"), web=True) == ("ddgs", "arxiv")
    assert searchable(["pubmed", "arxiv"], ("ddgs", "arxiv", "pubmed"), web=False) == ("arxiv", "pubmed")
    assert searchable(["crossref"], ("arxiv",), web=True) == ()
    assert may_browse(["web"], True) and not may_browse(["arxiv"], True) and not may_browse(["web"], False)


def test_a_literature_search_needs_no_web_flag_and_a_web_provider_still_does(tmp_path):
    from harness.orchestrator.config import build_config, config_from_snapshot, literature_providers

    cfg = build_config("q?", runs_dir=str(tmp_path), search="arxiv,openalex")
    assert not cfg.web and literature_providers(cfg) == ("arxiv", "openalex")
    assert {"web_search", "fetch_url"} <= set(cfg.roles["researcher"].spec.tools)
    back = config_from_snapshot("q?", cfg.snapshot(), cfg.budget)
    assert {"web_search", "fetch_url"} <= set(back.roles["researcher"].spec.tools)
    with pytest.raises(UsageError, match=r"^--search: the web is off for this run \(add --web\)$"):
        build_config("q?", runs_dir=str(tmp_path), search="arxiv,ddgs")
    plain = build_config("q?", runs_dir=str(tmp_path))
    assert literature_providers(plain) == () and "web_search" not in plain.roles["researcher"].spec.tools
    with pytest.raises(UsageError, match=r"^--search-url: the web is off for this run \(add --web\)$"):
        build_config("q?", runs_dir=str(tmp_path), search_url="http://127.0.0.1:9")
    assert build_config("q?", runs_dir=str(tmp_path), search="pubmed", search_url="http://127.0.0.1:9").search == {
        "provider": "pubmed",
        "url": "http://127.0.0.1:9",
    }


def test_a_plan_edit_may_allow_only_the_sources_the_run_offers(tmp_path, specs):
    from harness.errors import ArtifactInvalid
    from harness.orchestrator.approvals import edit_plan

    ws = Workspace.create(tmp_path / "runs", "q?", config={"web": False, "search": {"provider": "arxiv"}})
    ws.write("plan.json", make_plan(), specs["planner"].policy)
    for allowed, refusal in ((["corpus", "crossref"], "this run does not search crossref"), (["web"], "web is off")):
        plan = make_plan()
        plan["questions"][0]["allowed_sources"] = allowed
        with pytest.raises(ArtifactInvalid, match=refusal):
            edit_plan(ws, json.dumps(plan), "ada")
    plan["questions"][0]["allowed_sources"] = ["corpus", "arxiv"]
    edit_plan(ws, json.dumps(plan), "ada")
    assert ws.reader().read_json("plan.json")["questions"][0]["allowed_sources"] == ["corpus", "arxiv"]
