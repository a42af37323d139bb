"""Gemini's own Google Search: one `generate_content` call with the Google Search tool (`google-genai`, the
client langchain-google-genai is built on), whose grounding metadata lists the pages it found.

Gemini names each page by a grounding redirect (`https://vertexaisearch.cloud.google.com/grounding-api-redirect/…`),
not by its address. The redirect is resolved by one GET that reads its Location without following it; the
page itself is then fetched like any other result, through every guard of `fetch_url`. Only redirects on
Google's redirect host (or on the host of the configured endpoint, for a local stand-in) are resolved; any
other URL is kept as it is. Key: GOOGLE_API_KEY or GEMINI_API_KEY; `--search-url` sets the API's base URL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

from harness.contract.search import GEMINI
from harness.sources.search.base import SEARCH_TIMEOUT, Provider, ProviderInfo, SearchFailed, WebHit

if TYPE_CHECKING:
    import httpx

REDIRECT_HOST = "vertexaisearch.cloud.google.com"
REDIRECT_PATH = "/grounding-api-redirect/"
PROMPT = "Search the web for pages that answer this, and say briefly what each one says: {query}"


class GeminiSearch(Provider):
    info = ProviderInfo(GEMINI, module="google.genai", pip="google-genai", key_env=("GOOGLE_API_KEY", "GEMINI_API_KEY"))

    def search(self, query: str, n: int) -> list[WebHit]:
        import httpx
        from google import genai
        from google.genai import types

        if not self.settings.model:
            raise SearchFailed("gemini search: no model is configured (search.model in research.yaml)")
        options = types.HttpOptions(base_url=self.settings.url, timeout=int(SEARCH_TIMEOUT * 1000))
        client = genai.Client(api_key=self.api_key, http_options=options)
        try:
            answer = client.models.generate_content(
                model=self.settings.model,
                contents=PROMPT.format(query=query),
                config=types.GenerateContentConfig(tools=[types.Tool(google_search=types.GoogleSearch())]),
            )
        except Exception as exc:  # google.genai.errors.APIError and transport errors
            raise self.failed(exc) from None
        meta = answer.candidates[0].grounding_metadata if answer.candidates else None
        chunks = list((meta.grounding_chunks if meta else None) or [])
        snippets = _snippets(meta, len(chunks))
        rows: list[tuple[str, str, str, str | None]] = []
        with httpx.Client(timeout=SEARCH_TIMEOUT, follow_redirects=False) as http:
            for i, chunk in enumerate(chunks):
                if chunk.web is None or not chunk.web.uri:
                    continue
                rows.append((self._resolve(http, chunk.web.uri), chunk.web.title or "", snippets[i], None))
        return self.hits(query, rows, n)

    def _resolve(self, http: httpx.Client, uri: str) -> str:
        """The page a grounding redirect points to (its Location), or `uri` itself when it is no such redirect or
        the redirect does not answer with one."""
        import httpx

        parts = urlsplit(uri)
        ours = {REDIRECT_HOST} | ({urlsplit(self.settings.url).hostname} if self.settings.url else set())
        if parts.hostname not in ours or not parts.path.startswith(REDIRECT_PATH):
            return uri
        try:
            resp = http.get(uri)  # not followed: only its Location is read
        except httpx.HTTPError:
            return uri
        location = resp.headers.get("location")
        return urljoin(uri, location) if resp.is_redirect and location else uri


def _snippets(meta, n: int) -> list[str]:
    """For each grounding chunk, the answer's sentences that Gemini says rest on it (its grounding supports)."""
    out: list[list[str]] = [[] for _ in range(n)]
    for support in (meta.grounding_supports if meta else None) or []:
        text = support.segment.text if support.segment else None
        for i in support.grounding_chunk_indices or []:
            if text and 0 <= i < n and text not in out[i]:
                out[i].append(text)
    return [" ".join(parts) for parts in out]
