"""Each search provider through its own client (tavily-python, exa-py, google-genai) or httpx (Brave, SearXNG),
pointed at a local stub of its API on 127.0.0.1 through the client's base-URL option; and the preflight that
names what a configured provider still lacks, before any work."""

from __future__ import annotations

import pytest

from fakes.gemini_stub import GeminiStub, StubReply
from fakes.searxng_web import RESULTS, JsonApi, search_web
from fakes.sites import LocalSite, Reply, redirect
from harness.contract.schemas import schema as load_schema
from harness.contract.search import SEARCH_PROVIDERS
from harness.errors import UsageError
from harness.sources.search import PROVIDERS, SearchFailed, SearchSettings, make_provider, preflight

KEYS = ("TAVILY_API_KEY", "EXA_API_KEY", "BRAVE_API_KEY", "BRAVE_SEARCH_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    """No real key (tests/conftest.py clears the proxy variables), and 127.0.0.1 bypasses any proxy."""
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)
    for name in ("GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GEMINI_BASE_URL", "LANGSMITH_GATEWAY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


# ---- the set of providers ------------------------------------------------------------------------------


def test_one_provider_class_per_name_and_the_schemas_list_the_same_names():
    assert tuple(PROVIDERS) == SEARCH_PROVIDERS
    config = load_schema("config.schema.json")["properties"]["search"]["properties"]["provider"]["enum"]
    source = load_schema("source.schema.json")["properties"]["web"]["properties"]["provider"]["enum"]
    assert tuple(config) == tuple(source) == SEARCH_PROVIDERS


# ---- searxng (httpx, JSON API) ------------------------------------------------------------------------------


def test_searxng_through_its_json_api():
    with search_web() as site:
        hits = make_provider(SearchSettings("searxng", site.base + "/")).search("raft leader election", 4)
    assert site.queries == ["raft leader election"]
    assert [h.url for h in hits] == [site.base + path for path, _, _ in RESULTS[:4]]
    assert [h.rank for h in hits] == [1, 2, 3, 4]
    first = hits[0]
    assert (first.title, first.snippet, first.provider, first.query, first.text) == (
        RESULTS[0][1],
        RESULTS[0][2],
        "searxng",
        "raft leader election",
        None,
    )


def test_searxng_without_the_json_format_says_how_to_enable_it():
    with LocalSite({"/search": Reply(403, "text/html", b"<html>Forbidden</html>")}) as site:
        with pytest.raises(SearchFailed, match=r"refused the JSON format \(HTTP 403\): enable `json`"):
            make_provider(SearchSettings("searxng", site.base)).search("q", 3)


def test_searxng_that_is_down_is_a_search_failure_naming_the_provider():
    with LocalSite() as site:
        url = site.base
    with pytest.raises(SearchFailed, match=r"^searxng search failed \(ConnectError"):
        make_provider(SearchSettings("searxng", url)).search("q", 3)


# ---- brave (httpx, Web Search API) -----------------------------------------------------------------------------


def test_brave_sends_its_key_and_reads_web_results(monkeypatch):
    monkeypatch.setenv("BRAVE_API_KEY", "brave-test-key")
    answer = {
        "type": "search",
        "web": {
            "results": [
                {"url": "https://example.org/raft", "title": "Raft", "description": "Leader election in Raft."},
                {"url": "https://example.net/paxos", "title": "Paxos", "description": "Paxos, by contrast."},
            ]
        },
    }
    with JsonApi(lambda seen: (200, answer)) as stub:
        hits = make_provider(SearchSettings("brave", stub.base + "/res/v1")).search("raft", 5)
    (req,) = stub.seen
    assert (req.method, req.path, req.query["q"], req.query["count"]) == ("GET", "/res/v1/web/search", ["raft"], ["5"])
    assert req.headers["x-subscription-token"] == "brave-test-key"
    assert [(h.url, h.title, h.snippet, h.rank, h.provider) for h in hits] == [
        ("https://example.org/raft", "Raft", "Leader election in Raft.", 1, "brave"),
        ("https://example.net/paxos", "Paxos", "Paxos, by contrast.", 2, "brave"),
    ]


def test_brave_takes_langchains_variable_name_too_and_reports_a_bad_key(monkeypatch):
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "other-name")
    with JsonApi(lambda seen: (401, {"error": {"detail": "Invalid token"}})) as stub:
        with pytest.raises(SearchFailed, match=r"^brave search failed \(HTTPStatusError: Client error '401"):
            make_provider(SearchSettings("brave", stub.base)).search("raft", 5)
    assert stub.seen[0].headers["x-subscription-token"] == "other-name"


# ---- tavily (tavily-python) --------------------------------------------------------------------------------------


def test_tavily_through_its_client_returns_the_raw_page_text(monkeypatch):
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    answer = {
        "query": "raft",
        "results": [
            {
                "url": "https://example.org/raft",
                "title": "Raft",
                "content": "Leader election in Raft.",
                "score": 0.9,
                "raw_content": "Raft elects a leader by majority vote.",
            },
            {"url": "https://example.org/b", "title": "B", "content": "No raw text.", "score": 0.5},
        ],
        "response_time": 0.1,
    }
    with JsonApi(lambda seen: (200, answer)) as stub:
        hits = make_provider(SearchSettings("tavily", stub.base)).search("raft", 7)
    (req,) = stub.seen
    assert (req.method, req.path) == ("POST", "/search")
    assert req.headers["authorization"] == "Bearer tvly-test"
    assert req.body["query"] == "raft" and req.body["max_results"] == 7 and req.body["include_raw_content"] == "text"
    assert [(h.url, h.snippet, h.text, h.rank, h.provider) for h in hits] == [
        ("https://example.org/raft", "Leader election in Raft.", "Raft elects a leader by majority vote.", 1, "tavily"),
        ("https://example.org/b", "No raw text.", None, 2, "tavily"),
    ]


def test_tavily_error_is_a_search_failure(monkeypatch):
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-bad")
    with JsonApi(lambda seen: (401, {"detail": {"error": "Unauthorized: missing or invalid API key."}})) as stub:
        with pytest.raises(SearchFailed, match=r"^tavily search failed .*invalid API key"):
            make_provider(SearchSettings("tavily", stub.base)).search("raft", 3)


# ---- exa (exa-py) ---------------------------------------------------------------------------------------------------


def test_exa_through_its_client_returns_the_page_text(monkeypatch):
    monkeypatch.setenv("EXA_API_KEY", "exa-test")
    answer = {
        "requestId": "r1",
        "resolvedSearchType": "neural",
        "results": [
            {
                "id": "https://example.org/raft",
                "url": "https://example.org/raft",
                "title": "Raft",
                "text": "Raft elects a leader by majority vote. " * 20,
                "highlights": ["Raft elects a leader by majority vote."],
            },
            {"id": "b", "url": "https://example.org/b", "title": None, "text": "Only text here, no highlights."},
        ],
    }
    with JsonApi(lambda seen: (200, answer)) as stub:
        hits = make_provider(SearchSettings("exa", stub.base)).search("raft", 2)
    (req,) = stub.seen
    assert (req.method, req.path, req.headers["x-api-key"]) == ("POST", "/search", "exa-test")
    assert req.body["query"] == "raft" and req.body["numResults"] == 2 and "text" in req.body["contents"]
    first, second = hits
    assert first.snippet == "Raft elects a leader by majority vote." and first.text.startswith("Raft elects")
    assert (second.title, second.snippet, second.rank, second.provider) == (
        "",
        "Only text here, no highlights.",
        2,
        "exa",
    )


def test_exa_error_is_a_search_failure(monkeypatch):
    monkeypatch.setenv("EXA_API_KEY", "exa-bad")
    with JsonApi(lambda seen: (401, {"error": "Invalid API key"})) as stub:
        with pytest.raises(SearchFailed, match=r"^exa search failed .*401"):
            make_provider(SearchSettings("exa", stub.base)).search("raft", 3)


# ---- gemini (google-genai with the Google Search tool) -----------------------------------------------------------------


def grounded_answer(chunks: list[tuple[str, str]]) -> StubReply:
    """A Gemini answer grounded by Google Search: its text, the pages (grounding chunks) and what rests on them."""
    return StubReply(
        body={
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"text": "Raft elects a leader by majority vote."}]},
                    "finishReason": "STOP",
                    "groundingMetadata": {
                        "webSearchQueries": ["raft leader election"],
                        "groundingChunks": [{"web": {"uri": uri, "title": title}} for uri, title in chunks],
                        "groundingSupports": [
                            {
                                "segment": {
                                    "startIndex": 0,
                                    "endIndex": 38,
                                    "text": "Raft elects a leader by majority vote.",
                                },
                                "groundingChunkIndices": [0, 1],
                            }
                        ],
                    },
                }
            ],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 8, "totalTokenCount": 18},
        }
    )


def test_gemini_searches_with_the_google_search_tool_and_resolves_the_grounding_redirects(monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "gemini-test")
    with LocalSite() as pages:
        pages.routes["/grounding-api-redirect/AbC1"] = redirect(pages.url("/raft/leader-election"))
        pages.routes["/grounding-api-redirect/dead"] = Reply(404, "text/plain", b"gone")
        chunks = [
            (pages.url("/grounding-api-redirect/AbC1"), "example.org"),
            (pages.url("/grounding-api-redirect/dead"), "gone.example"),
            ("https://docs.example.org/direct", "docs.example.org"),
        ]
        with GeminiStub(replies=[grounded_answer(chunks)]) as stub:
            settings = SearchSettings("gemini", stub.base_url, model="gemini-3.5-flash")
            hits = make_provider(settings).search("raft leader election", 5)
        stub.assert_no_errors()
    req = stub.generate_requests[0]
    assert req.model == "gemini-3.5-flash" and req.api_key == "gemini-test"
    assert any("googleSearch" in tool or "google_search" in tool for tool in req.body["tools"])
    assert "raft leader election" in req.last_user_text
    assert [h.url for h in hits] == [
        pages.url("/raft/leader-election"),  # the redirect, resolved without fetching the page
        pages.url("/grounding-api-redirect/dead"),  # no Location: kept as is (fetch_url will refuse it)
        "https://docs.example.org/direct",  # not a grounding redirect: kept as is
    ]
    assert pages.hits["/raft/leader-election"] == 0
    assert [h.snippet for h in hits] == ["Raft elects a leader by majority vote."] * 2 + [""]
    assert {h.provider for h in hits} == {"gemini"} and [h.rank for h in hits] == [1, 2, 3]


def test_gemini_does_not_follow_redirects_on_other_hosts(monkeypatch):
    monkeypatch.setenv("GOOGLE_API_KEY", "gemini-test")
    other = "http://localhost:9/grounding-api-redirect/x"  # neither Google's redirect host nor the endpoint's
    with GeminiStub(replies=[grounded_answer([(other, "x")])]) as stub:
        hits = make_provider(SearchSettings("gemini", stub.base_url, model="gemini-3.5-flash")).search("q", 3)
    assert [h.url for h in hits] == [other]


# ---- ddgs (the ddgs library) --------------------------------------------------------------------------------------------


def test_ddgs_maps_its_library_rows_and_its_failures(monkeypatch):
    """ddgs scrapes public result pages from many engines, so no local stub can stand in for them: its `DDGS.text` is
    replaced (no request is made), and the provider's mapping (href, body) and failure handling are checked."""
    import ddgs
    from ddgs.ddgs import DDGS  # the class `ddgs.DDGS` (a lazy proxy) builds

    asked = []

    def text(self, query, max_results=10):
        asked.append((query, max_results))
        return [{"title": "Raft", "href": "https://example.org/raft", "body": "Leader election."}, {"title": "No URL"}]

    monkeypatch.setattr(DDGS, "text", text)
    (hit,) = make_provider(SearchSettings()).search("raft", 4)
    assert asked == [("raft", 4)]
    assert (hit.url, hit.title, hit.snippet, hit.rank, hit.provider, hit.text) == (
        "https://example.org/raft",
        "Raft",
        "Leader election.",
        1,
        "ddgs",
        None,
    )

    def limited(self, query, max_results=10):
        raise ddgs.exceptions.RatelimitException("202 Ratelimit")

    monkeypatch.setattr(DDGS, "text", limited)
    with pytest.raises(SearchFailed, match=r"^ddgs search failed \(RatelimitException: 202 Ratelimit\)$"):
        make_provider(SearchSettings()).search("raft", 4)


# ---- preflight ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            SearchSettings("bing"),
            r"^--search bing: unknown provider \(choose ddgs, tavily, exa, brave, searxng, gemini, arxiv, openalex, crossref, semanticscholar, pubmed\)$",
        ),
        (SearchSettings("searxng"), r"^--search searxng: needs --search-url \(or search.url in research.yaml\)"),
        (SearchSettings("searxng", "ftp://x"), r"^--search-url ftp://x: expected an http\(s\) URL"),
        (SearchSettings("tavily"), r"^--search tavily: set TAVILY_API_KEY \(the provider's API key\)$"),
        (SearchSettings("exa"), r"^--search exa: set EXA_API_KEY"),
        (SearchSettings("brave"), r"^--search brave: set BRAVE_API_KEY or BRAVE_SEARCH_API_KEY"),
        (SearchSettings("gemini"), r"^--search gemini: set GOOGLE_API_KEY or GEMINI_API_KEY"),
        (SearchSettings("ddgs", "http://127.0.0.1:1"), r"^--search-url: ddgs has no endpoint to set"),
    ],
)
def test_preflight_names_what_is_missing_in_one_line(settings, message):
    with pytest.raises(UsageError, match=message) as info:
        preflight(settings)
    assert info.value.exit_code == 2 and "\n" not in str(info.value)


def test_preflight_names_the_package_to_install(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "tavily" else real(name, *a))
    monkeypatch.setenv("TAVILY_API_KEY", "k")
    with pytest.raises(
        UsageError, match=r"^--search tavily: its client is not installed: pip install 'research-harness\[tavily\]'$"
    ):
        preflight(SearchSettings("tavily"))


def test_ddgs_needs_nothing():
    preflight(SearchSettings())  # the default: free, keyless, no endpoint
