"""An operator a query writes is marks no token keeps: the search finds it by the grammar rules that quote it
(`harness.sources.index.operators_in`, `operator_rules`), and a corpus without grammar productions searches as before."""

from __future__ import annotations

import pytest

from fakes.workspaces import write_docs
from harness.sources.corpus import load_folder
from harness.sources.index import CorpusIndex, operator_rules, operators_in, productions

GRAMMAR_DOCS = {
    "blend.md": '# Blending operations\n\n   blend_expr ::= mix_expr | blend_expr "&" mix_expr\n'
    '   swap_expr  ::= blend_expr | swap_expr ">>" blend_expr\n\n'
    'The "&" operator yields the blend of its two arguments, which must be glyphs.\n',
    "kinds.md": "# Kinds of values\n\nEvery kind of value accepts some operands and rejects others; the kinds are "
    "listed here with the operands each kind accepts.\n",
    "notes.md": "# Release notes\n\nThe operands that each operator accepts changed in this release: see the kinds.\n",
}


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    """A cache folder of this test's own: the folder corpora's extracts and indexes never leak between tests."""
    monkeypatch.setenv("RESEARCH_CACHE_DIR", str(tmp_path / "cache"))


def test_operators_are_read_where_the_query_writes_them_as_operators():
    assert operators_in("What kinds of operands do the &, ^ and | operators accept?") == ["&", "^", "|"]
    assert operators_in("What does x >> n compute for an integer x?") == [">>"]
    assert operators_in("What value does the `~` operator produce?") == ["~"]
    assert operators_in("Does x += 1 modify the object in place?") == ["+="]
    # a dash between words is prose, and so is an ampersand in a name
    assert operators_in("Do two names that look different - after normalization - compare equal?") == []
    assert operators_in("Which album did Simon & Garfunkel record first?") == []


def test_the_grammar_says_which_rules_quote_an_operator(tmp_path):
    corpus = load_folder(write_docs(tmp_path / "c", GRAMMAR_DOCS))
    assert operator_rules(corpus) == {"&": ["blend_expr"], ">>": ["swap_expr"]}
    assert productions('swap_expr ::= blend_expr | swap_expr ">>" blend_expr') == [("swap_expr", [">>"])]
    assert productions("No grammar here: a ::= b is prose inside a sentence.") == []


def test_a_query_that_writes_an_operator_finds_the_rules_that_quote_it(tmp_path):
    index = CorpusIndex.build(load_folder(write_docs(tmp_path / "c", GRAMMAR_DOCS)), use_cache=False)
    paths = [d.path for d in index.corpus.documents]
    # the question's words are all in the other documents; only the operator says which one it asks about
    hits = index.search("What kinds of operands does the & operator accept?", 1)
    assert [paths[h.doc] for h in hits] == ["blend.md"]
    words_only = index.search("What kinds of operands does the operator accept?", 1)
    assert [paths[h.doc] for h in words_only] != ["blend.md"]
    # a corpus without grammar productions: the operator adds nothing
    plain = CorpusIndex.build(
        load_folder(write_docs(tmp_path / "p", {"kinds.md": GRAMMAR_DOCS["kinds.md"]})), use_cache=False
    )
    assert plain.search("What kinds of operands does the & operator accept?", 3) == plain.search(
        "What kinds of operands does the operator accept?", 3
    )


def test_an_operator_several_grammars_quote_names_none_of_them_fully():
    from harness.engines.offline.ranking import Ask

    blend = GRAMMAR_DOCS["blend.md"]
    star = 'Calls\n\n   call_args ::= "(" ["*" name] ")"\n'
    times = 'Products\n\n   times_expr ::= unit | times_expr "*" unit\n'
    one = Ask.of("What does the `&` operator accept?")
    one.place_operators([blend, star, times])
    assert one.named_in(blend) == 1.0 and one.named_in(times) == 0.0
    shared = Ask.of("What does the `*` operator do?")
    shared.place_operators([blend, star, times])
    assert shared.named_in(star) == shared.named_in(times) == 0.5 and shared.named_in(blend) == 0.0
