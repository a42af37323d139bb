"""Keeping cookie banners, navigation and footers out of web snapshots, short pages included.

trafilatura finds the main text of a long article well, but on a short page it falls back to keeping
nearly everything ("We use cookies… Accept all Settings Home | News…"). Two passes close that gap:

- before extraction, `strip_chrome` drops the page furniture the markup names: <nav>, <footer>,
  <aside>, <form>, <dialog>, a <header> outside the article, ARIA roles such as navigation, banner
  and contentinfo, hidden elements, and elements whose id or class names a cookie banner, consent
  dialog, menu, breadcrumb, sidebar, share bar, newsletter box or advert;
- after extraction, `drop_boilerplate_lines` removes the lines that are furniture by what they say:
  cookie and consent notices, copyright lines, link rows such as "Home | News | About", and lone
  interface words ("Accept all", "Skip to content", "Back to top").
"""

from __future__ import annotations

import re

from lxml.html import HtmlElement

_CHROME_TAGS = ("nav", "footer", "aside", "form", "dialog", "button", "template", "select")
_CHROME_ROLES = {"navigation", "banner", "contentinfo", "dialog", "alertdialog", "search", "complementary", "menu"}
_CHROME_NAME = re.compile(
    r"(?:^|[-_ ])(?:cookies?|consent|gdpr|cmp|onetrust|nav|navbar|navigation|menu|breadcrumbs?|footer|sidebar|"
    r"newsletter|subscribe|social|share|sharing|popup|modal|overlay|adverts?|ads?|promo|skip-?link)(?:$|[-_ ])",
    re.IGNORECASE,
)
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


def strip_chrome(root: HtmlElement) -> HtmlElement:
    """Drop, in place, the elements the page's markup marks as furniture; returns `root`."""
    doomed = []
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        tag = el.tag.lower()
        if tag in ("html", "body", "main", "article"):
            continue
        if tag in _CHROME_TAGS:
            doomed.append(el)
        elif tag == "header" and not any(a.tag in ("article", "main") for a in el.iterancestors()):
            doomed.append(el)
        elif (el.get("role") or "").lower() in _CHROME_ROLES or el.get("aria-modal") == "true":
            doomed.append(el)
        elif (
            el.get("hidden") is not None
            or el.get("aria-hidden") == "true"
            or _HIDDEN_STYLE.search(el.get("style") or "")
        ):
            doomed.append(el)
        elif _CHROME_NAME.search(el.get("id") or "") or any(
            _CHROME_NAME.search(c) for c in (el.get("class") or "").split()
        ):
            doomed.append(el)
    for el in doomed:
        if el.getparent() is not None:
            el.drop_tree()
    return root


_COOKIE_LINE = re.compile(
    r"\b(?:we|this (?:web)?site|our (?:web)?site|it) uses? cookies\b|\bcookie (?:policy|settings|preferences|notice)\b"
    r"|\b(?:by (?:continuing|using|browsing)\b.{0,80}\b(?:agree|consent|accept)\w*)\b|\buse of cookies\b",
    re.IGNORECASE,
)
_COPYRIGHT_LINE = re.compile(r"^(?:©|\(c\)|copyright\b)|\ball rights reserved\b", re.IGNORECASE)
_SEPARATORS = re.compile(r"\s*[|·•»›/]\s*")
_UI_WORDS = {
    "accept",
    "accept all",
    "accept cookies",
    "allow all",
    "reject all",
    "decline",
    "settings",
    "cookie settings",
    "manage cookies",
    "manage preferences",
    "skip to content",
    "skip to main content",
    "back to top",
    "menu",
    "close",
    "sign in",
    "log in",
    "login",
    "sign up",
    "register",
    "subscribe",
    "share",
    "share this",
    "print",
    "search",
    "privacy",
    "privacy policy",
    "terms",
    "terms of use",
    "terms of service",
    "imprint",
    "contact",
    "contact us",
    "read more",
}
SHORT_LINE = 160  # a copyright or cookie line longer than this is prose that mentions them, and stays


def _is_link_row(line: str) -> bool:
    """'Home | News | About': short items between separators, with no sentence among them."""
    parts = [p for p in _SEPARATORS.split(line) if p]
    if not _SEPARATORS.search(line):
        return False
    if not parts:
        return True  # separators only
    return len(parts) >= 2 and all(len(p.split()) <= 3 and not p.endswith((".", "?", "!")) for p in parts)


def is_boilerplate_line(line: str) -> bool:
    stripped = line.strip()
    if not stripped:
        return False
    if stripped.lower().strip(" .:!»›×✕") in _UI_WORDS:
        return True
    if _is_link_row(stripped):
        return True
    return len(stripped) <= SHORT_LINE and bool(_COOKIE_LINE.search(stripped) or _COPYRIGHT_LINE.search(stripped))


def drop_boilerplate_lines(text: str) -> str:
    """The extracted text without its furniture lines (the rest unchanged, in order)."""
    kept = [line for line in text.splitlines() if not is_boilerplate_line(line)]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()
