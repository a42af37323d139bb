"""Run configuration: command-line flags over research.yaml over agent specs over defaults.

Resolves, per role, which engine runs it (offline, llm or a custom class), with which
spec and which model, and fails before any work with one line naming the flag, file or
field when something is wrong (a missing API key, an uninstalled provider, a bad spec).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from harness.contract.language import DEFAULT_LANGUAGE, check_language, is_english
from harness.contract.meaning import (
    DEFAULT_MEANING,
    MEANING_ENV,
    MEANING_WEIGHTS,
    WORDLLAMA,
    MeaningModel,
    chosen_meaning,
)
from harness.contract.options import (
    BUDGET_FLAGS,
    DEFAULT_CONCURRENCY,
    DEFAULT_MAX_REVISIONS,
    DEFAULT_RUNS_DIR,
    ENGINES,
    RunOptions,
    flag_of,
)
from harness.contract.schemas import schema, validate
from harness.contract.search import DEFAULT_SEARCH_PROVIDER, SearchProviderName, literature_of
from harness.contract.specs import ROLES, default_spec_path, load_spec
from harness.contract.statuses import BUDGET_DIMENSIONS, USD
from harness.contract.works import CITATION_STYLES, DEFAULT_CITATION_STYLE, CitationStyle
from harness.engines.llm.models import DEFAULT_MODEL
from harness.engines.llm.pricing import check_prices
from harness.errors import UsageError, module_installed, require_extra
from harness.orchestrator.role_choice import RoleChoice, choose_roles, set_base_urls
from harness.runtime.budget import DEFAULT_RUN_LIMITS
from harness.sources.corpus import PYTHON_DOCS, Corpus
from harness.sources.search import SearchSettings, preflight

DEFAULT_CORPUS = PYTHON_DOCS


@dataclass
class RunConfig:
    question: str
    corpus: str = DEFAULT_CORPUS
    runs_dir: Path = Path("runs")
    roles: dict[str, RoleChoice] = field(default_factory=dict)
    budget: dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_RUN_LIMITS))
    role_budgets: dict[str, dict[str, Any]] = field(default_factory=dict)
    max_revisions: int = DEFAULT_MAX_REVISIONS
    concurrency: int = DEFAULT_CONCURRENCY
    require_final_approval: bool = False
    web: bool = False
    fetch: dict[str, Any] = field(default_factory=dict)  # research.yaml `fetch:` (WebTools keyword arguments)
    yes: bool = False
    language: str = DEFAULT_LANGUAGE
    citation_style: CitationStyle = DEFAULT_CITATION_STYLE  # the bibliography's CSL style (contract/works.py)
    sources: dict[str, Any] = field(default_factory=dict)
    search: dict[str, Any] = field(default_factory=dict)  # the web search provider: {provider, url, model}
    mcp: dict[str, Any] = field(default_factory=dict)  # research.yaml's `mcp:` (servers by name; no secrets)
    meaning: MeaningModel = DEFAULT_MEANING  # the offline engine's meaning model (`RESEARCH_MEANING`, contract.meaning)
    prices: dict[str, dict[str, float]] = field(default_factory=dict)  # research.yaml `prices:` (USD per 1M tokens)

    @property
    def all_offline(self) -> bool:
        return all(c.engine == "offline" for c in self.roles.values())

    def snapshot(self) -> dict[str, Any]:
        """The config object recorded in run.json (no secrets: model names only)."""
        return {
            "engines": {r: c.engine for r, c in self.roles.items()},
            "models": {r: c.model for r, c in self.roles.items()},
            "base_urls": {r: c.base_url for r, c in self.roles.items() if c.base_url},
            "agents": {r: (c.target or str(c.spec.path)) for r, c in self.roles.items()},
            "spec_sha256": {r: c.spec.sha256 for r, c in self.roles.items()},
            "max_revisions": self.max_revisions,
            "concurrency": self.concurrency,
            "require_final_approval": self.require_final_approval,
            "corpus": self.corpus,
            "web": self.web,
            "fetch": self.fetch,
            "language": self.language,
            "citation_style": self.citation_style,
            "auto_approve_plan": self.yes,
            "sources": self.sources,
            "search": self.search,
            "role_budgets": self.role_budgets,
            "mcp": self.mcp,
            "meaning": self.meaning,
            "prices": self.prices,
        }


def check_config(data: Any, where: str) -> dict[str, Any]:
    """A research.yaml's content, validated against config.schema.json; one-line UsageError naming the field."""
    if not isinstance(data, dict):
        raise UsageError(f"{where}: must be a YAML mapping")
    problems = validate(data, "config.schema.json", where)
    if problems:
        p = problems[0]
        raise UsageError(f"{where}: field {p.pointer}: {p.message} [{p.rule}]")
    return data


# The flag each numeric option is given by is its RunOptions metadata's (contract/options.py); its bounds are
# config.schema.json's (one place for every door).


def _number_schema(key: str) -> dict[str, Any]:
    """The schema of one numeric option: a top-level property, or `budget/DIM` in the limits."""
    doc = schema("config.schema.json")
    if key.startswith("budget/"):
        return doc["$defs"]["limits"]["properties"][key.split("/", 1)[1]]
    return doc["properties"][key]


def check_numbers(values: dict[str, Any]) -> None:
    """The run's numeric options (max_revisions, concurrency, `budget` limits), from any door: each a finite number
    within the bounds config.schema.json states, or a one-line UsageError naming the flag. NaN, infinities (JSON's
    `1e999`, `--budget-seconds inf`) and absurd values never reach run.json, where they would break every reader."""
    flat = {k: v for k, v in values.items() if k != "budget"}
    flat.update({f"budget/{k}": v for k, v in (values.get("budget") or {}).items()})
    for key, value in flat.items():
        if value is None:
            continue
        name = key.replace("/", ".")
        flag = flag_of(name)
        rule = _number_schema(key)
        whole = rule["type"] == "integer"
        if isinstance(value, bool) or not isinstance(value, int if whole else (int, float)):
            raise UsageError(f"{flag} {value!r}: expected {'a whole number' if whole else 'a number'}", field=name)
        low, high = rule["minimum"], rule["maximum"]
        if not math.isfinite(value) or not low <= value <= high:
            raise UsageError(
                f"{flag} {value}: must be {'a whole number' if whole else 'a number'} from {low} to {high}", field=name
            )


def check_question(question: Any) -> str:
    """A run's question from any door, stripped: not empty, no NUL byte, and no longer than run.schema.json allows
    (a question, not a document: it travels as one command-line argument to the app's run processes)."""
    if not isinstance(question, str) or not question.strip():
        raise UsageError("QUESTION: must not be empty", field="question")
    if "\0" in question:
        raise UsageError("QUESTION: must not contain a NUL byte", field="question")
    limit = schema("run.schema.json")["properties"]["question"]["maxLength"]
    if len(question.strip()) > limit:
        raise UsageError(
            f"QUESTION: {len(question.strip())} characters, more than the {limit} a question may have", field="question"
        )
    return question.strip()


def check_limits(limits: dict[str, Any]) -> None:
    """Budget limits (`--budget-*`, research.yaml `budget:`, a raise at resume or from the app): `check_numbers`."""
    check_numbers({"budget": {k: v for k, v in limits.items() if k in BUDGET_DIMENSIONS}})


def load_config_file(path: Path | None) -> dict[str, Any]:
    """Read research.yaml (explicit path, or ./research.yaml when present)."""
    if path is None:
        default = Path("research.yaml")
        if not default.is_file():
            return {}
        path = default
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except FileNotFoundError:
        raise UsageError(f"{flag_of('config')}: {path} does not exist", field="config") from None
    except yaml.YAMLError as exc:
        raise UsageError(f"{path}: not valid YAML ({getattr(exc, 'problem', exc)})") from None
    return check_config(data, str(path))


def build_config(
    question: str | RunOptions,
    *,
    config_data: dict[str, Any] | None = None,
    agent_objects: dict[str, Any] | None = None,
    **given: Any,
) -> RunConfig:
    """The run configuration from a door's options (`RunOptions`, or its question and fields as keyword arguments:
    `build_config("q?", corpus=..., web=True)`) over research.yaml (the options' `config`, or `config_data` of the
    same shape) over agent specs over defaults. `agent_objects` maps roles to ready agent objects."""
    options = question if isinstance(question, RunOptions) else RunOptions(question, **given)
    question = check_question(options.question)
    budget = options.budget
    if budget is not None and not isinstance(budget, dict):
        raise UsageError(
            f"budget: expected an object of limits ({', '.join(BUDGET_FLAGS)}), got {type(budget).__name__}",
            field="budget",
        )
    file_cfg = (
        check_config(config_data, "config")
        if config_data is not None
        else load_config_file(None if options.config is None else Path(options.config))
    )
    check_choices(options)
    merged = options.over(file_cfg)  # each option not given: research.yaml's value (None: the default)
    roles = choose_roles(options.agents or [], merged, file_cfg, agent_objects or {})
    set_base_urls(roles, options.model_base_url, file_cfg.get("base_url"))
    limits = {
        **DEFAULT_RUN_LIMITS,
        **file_cfg.get("budget", {}),
        **{k: v for k, v in (budget or {}).items() if v is not None},
    }
    check_limits(limits)
    corpus = options.corpus or file_cfg.get("corpus", DEFAULT_CORPUS)
    cfg = RunConfig(
        question=question,
        corpus=corpus,
        runs_dir=Path(options.runs_dir or file_cfg.get("runs_dir", DEFAULT_RUNS_DIR)),
        roles=roles,
        budget=limits,
        role_budgets=file_cfg.get("role_budgets", {}),
        max_revisions=_or(merged.max_revisions, DEFAULT_MAX_REVISIONS),
        concurrency=_or(merged.concurrency, DEFAULT_CONCURRENCY),
        require_final_approval=_or(merged.require_final_approval, False),
        web=_or(merged.web, False),
        fetch=fetch_settings(
            file_cfg.get("fetch", {}), allow_private=options.web_allow_private, robots=options.web_robots
        ),
        yes=options.yes,
        language=_language(options.language, merged.language),
        citation_style=check_citation_style(_or(merged.citation_style, DEFAULT_CITATION_STYLE)),
        sources=file_cfg.get("sources", {}),
        search=_search_section(file_cfg.get("search", {}), options.search, options.search_url),
        mcp=file_cfg.get("mcp", {}),
        meaning=check_meaning(),
        prices=check_prices(file_cfg.get("prices", {})),
    )
    check_dollar_budget(cfg)
    named = (cfg.search.get("provider", DEFAULT_SEARCH_PROVIDER), *cfg.search.get("also", ()))
    if not cfg.web and (options.search_url is not None or options.search is not None) and literature_of(named) != named:
        # the literature providers are keyless sources of their own; a web search provider needs the web
        name = "search" if options.search is not None else "search_url"
        raise UsageError(f"{flag_of(name)}: the web is off for this run (add {flag_of('web')})", field=name)
    check_numbers({"max_revisions": cfg.max_revisions, "concurrency": cfg.concurrency})
    enable_sources(cfg)
    if cfg.mcp:
        check_mcp_installed()
    return cfg


def _or(value: Any, default: Any) -> Any:
    """An option's value, or its default when neither a door nor research.yaml gave one."""
    return value if value is not None else default


def check_choices(options: RunOptions) -> None:
    """The options that name one of a closed set or a form: --engine, --model."""
    if options.engine is not None and options.engine not in ENGINES:
        raise UsageError(f"{flag_of('engine')} {options.engine}: choose {' or '.join(ENGINES)}", field="engine")
    if options.model is not None and ":" not in options.model:
        raise UsageError(
            f"{flag_of('model')} {options.model}: expected PROVIDER:NAME, e.g. {DEFAULT_MODEL}", field="model"
        )


def _language(given: str | None, merged: str | None) -> str:
    """The report language: --language's, checked as the flag's, else research.yaml's (or the default)."""
    try:
        if given is not None:
            return check_language(given, flag_of("language"))
        return check_language(_or(merged, DEFAULT_LANGUAGE), "research.yaml language:")
    except UsageError as exc:
        raise UsageError(str(exc), field="language" if given is not None else None) from None


def role_prices(cfg: RunConfig) -> dict[str, Any]:
    """Each llm role's model price (`pricing.role_price`; None: price unknown); other roles make no model call
    the harness prices."""
    from harness.engines.llm.pricing import role_price

    return {
        role: role_price(choice.model, choice.base_url, cfg.prices)
        for role, choice in cfg.roles.items()
        if choice.engine == "llm"
    }


def check_dollar_budget(cfg: RunConfig, where: str = flag_of("budget.usd")) -> None:
    """A dollar budget needs every llm role's price: refuse one, in one line, when a model's is unknown."""
    limit = cfg.budget.get(USD)
    if limit is None:
        return
    unknown = {cfg.roles[r].model for r, price in role_prices(cfg).items() if price is None}
    if unknown:
        names = ", ".join(sorted(str(m) for m in unknown))
        raise UsageError(
            f"{where} {limit}: the price of {names} is unknown, so dollars cannot be held to a limit; "
            "set it under prices: in research.yaml (USD per million input and output tokens)",
            field="budget.usd",
        )


def check_meaning(recorded: str | None = None) -> MeaningModel:
    """The meaning model of this process (`RESEARCH_MEANING`), checked before any work: a run continues only with the
    model it began with (`recorded`, from its run.json). Its weights are checked once the corpus is read
    (`check_meaning_weights`)."""
    meaning = chosen_meaning()
    if recorded is not None and meaning != recorded:
        raise UsageError(
            f"{MEANING_ENV}={meaning}: this run began with {MEANING_ENV}={recorded}; continue it with that"
        )
    return meaning


def check_meaning_weights(cfg: RunConfig, corpus: Corpus | None) -> None:
    """A sentence encoder needs its weights' package installed where the offline Researcher reads meaning: when the
    profile its corpus's text chooses says so (`RankingProfile.needs_meaning`: a reference or a guide, not an
    encyclopedia's paragraphs). Checked before any work."""
    from harness.engines.offline.profile import corpus_profile

    researcher = cfg.roles.get("researcher")
    if researcher is None or researcher.engine != "offline" or not corpus_profile(corpus).needs_meaning:
        return
    meaning = cfg.meaning
    if meaning in MEANING_WEIGHTS:
        module, install = MEANING_WEIGHTS[meaning]
        if not module_installed(module):
            raise UsageError(
                f"{MEANING_ENV}={meaning} needs the all-MiniLM-L6-v2 weights ({module} missing): {install}"
                f" (or {MEANING_ENV}={WORDLLAMA})"
            )


def check_citation_style(style: str) -> CitationStyle:
    """--citation-style names one of the bundled CSL styles."""
    if style not in CITATION_STYLES:
        raise UsageError(
            f"{flag_of('citation_style')} {style}: choose one of {', '.join(CITATION_STYLES)}", field="citation_style"
        )
    return style


def check_mcp_installed() -> None:
    """MCP servers in research.yaml need the `mcp` extra; say so in one line before any work."""
    require_extra("research.yaml mcp", "mcp", ("mcp",))


WEB_TOOLS = ("web_search", "fetch_url")


def fetch_settings(file_fetch: dict[str, Any], *, allow_private: bool | None, robots: bool | None) -> dict[str, Any]:
    """research.yaml's `fetch:` with the --web-allow-private and --web-ignore-robots flags over it."""
    out = dict(file_fetch)
    if allow_private is not None:
        out["allow_private"] = allow_private
    if robots is not None:
        out["robots"] = robots
    return out


def offline_language_note(cfg: RunConfig) -> str | None:
    """The one line a run prints at its start when offline roles cannot write its report language."""
    offline = [r for r, c in cfg.roles.items() if c.engine == "offline"]
    if not offline or is_english(cfg.language):
        return None
    return (
        f"research: the offline engine writes English only: {', '.join(offline)} will write in English, "
        f"not --language {cfg.language} (quotes stay in their sources' language)."
    )


def _search_section(file_search: dict[str, Any], provider: str | None, url: str | None) -> dict[str, Any]:
    """research.yaml's `search:` with --search and --search-url over it; another provider drops the file's URL.
    `--search arxiv,openalex` names several: the first is `provider`, the others `also`."""
    section = dict(file_search)
    if provider is not None:
        first, *more = [name.strip() for name in provider.split(",")]
        if first != section.get("provider", DEFAULT_SEARCH_PROVIDER):
            section.pop("url", None)  # the file's endpoint belongs to the file's provider
        section["provider"] = first
        section["also"] = more
        if not more:
            section.pop("also")
    if url is not None:
        section["url"] = url
    return section


def search_settings(cfg: RunConfig) -> SearchSettings:
    """The run's search provider settings (ddgs unless configured; gemini searches with the default Gemini model
    unless search.model names another; `also` and `providers` for several providers and their own settings)."""
    s = cfg.search
    model = s.get("model") or DEFAULT_MODEL.split(":", 1)[1]
    settings = SearchSettings(
        s.get("provider", DEFAULT_SEARCH_PROVIDER),
        s.get("url"),
        model,
        tuple(s.get("also") or ()),
        {name: dict(opts) for name, opts in (s.get("providers") or {}).items()},
    )
    literature = literature_of(settings.names)
    if cfg.web or not literature or literature == settings.names:
        return settings
    # without --web a run searches only the literature providers its search settings name
    first, *more = literature
    url = settings.url if first == settings.provider else None
    return SearchSettings(first, url, model, tuple(more), settings.options)


def literature_providers(cfg: RunConfig) -> tuple[SearchProviderName, ...]:
    """The literature providers the run searches (`--search arxiv,openalex`, research.yaml `search:`): keyless
    sources a plan question may name in its allowed_sources, with or without --web."""
    return literature_of(search_settings(cfg).names)


def enable_sources(cfg: RunConfig) -> None:
    """--web, or a literature provider in the run's search settings, gives the Researcher the web tools (still
    limited to what the plan allows each question: `contract/search.searchable`)."""
    if cfg.web or literature_providers(cfg):
        enable_web(cfg)


def enable_web(cfg: RunConfig) -> None:
    """Give the Researcher the web tools (`web_search` and `fetch_url`; without --web they reach only the literature
    providers, and the papers they found), once the extractor is known to import (a broken install is one line now,
    not a failed branch at the first fetch) and the search provider's package, key and endpoint are there."""
    from harness.sources.web.preflight import NEEDED, extractor_missing

    settings = search_settings(cfg)
    missing = extractor_missing(NEEDED if cfg.web else tuple(m for m in NEEDED if m != "ddgs"))
    if missing:
        where = flag_of("web") if cfg.web else f"{flag_of('search')} {','.join(settings.names)}"
        raise UsageError(f"{where}: {missing}", field="web" if cfg.web else "search")
    try:
        preflight(settings)
        literature = literature_of(settings.names)
        if literature:  # the papers it finds are cited in a bibliography at the run's end: check its renderer now
            require_extra(f"{flag_of('search')} {','.join(literature)}", "papers", ("citeproc",))
    except UsageError as exc:
        raise UsageError(str(exc), field="search") from None
    choice = cfg.roles["researcher"]
    tools = tuple(dict.fromkeys(choice.spec.tools + WEB_TOOLS))
    choice.spec = replace(choice.spec, tools=tools)


def config_from_snapshot(
    question: str, snapshot: dict[str, Any], budget_limits: dict[str, Any], model_base_url: str | None = None
) -> RunConfig:
    """Rebuild a RunConfig from run.json, for `research resume`. The endpoints are the run's own unless
    `model_base_url` (resume's --model-base-url) moves them; an endpoint the run never named is read from the
    client's variables when the model is built, so a changed environment is honoured."""
    roles = {}
    for role in ROLES:
        engine = snapshot["engines"][role]
        agent = snapshot["agents"][role]
        target = agent if engine == "custom" else None
        spec = load_spec(default_spec_path(role)) if engine == "custom" else load_spec(Path(agent))
        if spec.sha256 != snapshot.get("spec_sha256", {}).get(role, spec.sha256):
            raise UsageError(f"{spec.path}: the agent spec changed since the run started; resume refuses to mix specs")
        roles[role] = RoleChoice(role, engine, spec, snapshot["models"][role], target, source="run.json")
        roles[role].base_url = (snapshot.get("base_urls") or {}).get(role)
        roles[role].base_url_from = "run.json config.base_urls"
    corpus = snapshot.get("corpus") or DEFAULT_CORPUS
    cfg = RunConfig(
        question=question,
        corpus=corpus,
        roles=roles,
        budget=budget_limits,
        role_budgets=snapshot.get("role_budgets", {}),
        max_revisions=snapshot.get("max_revisions", DEFAULT_MAX_REVISIONS),
        concurrency=snapshot.get("concurrency", DEFAULT_CONCURRENCY),
        require_final_approval=snapshot.get("require_final_approval", False),
        web=snapshot.get("web", False),
        fetch=snapshot.get("fetch", {}),
        yes=snapshot.get("auto_approve_plan", False),
        language=snapshot.get("language", DEFAULT_LANGUAGE),
        citation_style=snapshot.get("citation_style", DEFAULT_CITATION_STYLE),
        sources=snapshot.get("sources", {}),
        search=snapshot.get("search", {}),
        mcp=snapshot.get("mcp", {}),
        # a run.json from before `config.meaning` was recorded ran on WordLlama, then the only model
        meaning=check_meaning(snapshot.get("meaning", WORDLLAMA)),
        prices=snapshot.get("prices", {}),
    )
    if model_base_url:
        set_base_urls(cfg.roles, model_base_url, None)
    check_dollar_budget(cfg, f"research resume {flag_of('budget.usd')}")
    enable_sources(cfg)
    if cfg.mcp:
        check_mcp_installed()
    return cfg
