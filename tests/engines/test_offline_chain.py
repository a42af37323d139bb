"""The answer's chain of documents (engines/offline/chain.py): a bridge pair, a comparison pair, no chain for code."""

from __future__ import annotations

from dataclasses import dataclass

from harness.engines.offline.chain import about_names, chain_docs, chain_sentences
from harness.engines.offline.ranking import Ask


@dataclass(eq=False)
class S:
    source_id: str
    title: str
    text: str
    first: bool = False


def pool_of(docs: dict[str, list[str]]) -> dict[str, list[S]]:
    return {
        title: [S(title, title, text, first=i == 0) for i, text in enumerate(texts)] for title, texts in docs.items()
    }


DOCS = {
    "Kiss and Tell (1945 film)": [
        "Kiss and Tell is a 1945 American comedy film directed by Richard Wallace.",
        "The film stars Shirley Temple as Corliss Archer, a teenage girl in a small town.",
    ],
    "Shirley Temple": [
        "Shirley Temple Black was an American child star, singer and dancer.",
        "As an adult she held the government position of United States ambassador to Ghana.",
    ],
    "Meet Corliss Archer": [
        "Meet Corliss Archer is an American radio sitcom about a teenage girl.",
        "The radio series ran for many seasons on several networks.",
    ],
    "Comedy film": [
        "A comedy film is a film genre that emphasizes humor and amusement.",
        "Many comedy films of the 1940s starred teenage actors in family roles.",
    ],
}


def ask_for(question: str, pool) -> Ask:
    ask = Ask.of(question)
    ask.weigh([" ".join(s.text for s in sents) for sents in pool.values()])
    return ask


def test_a_bridge_question_chains_the_document_it_describes_to_the_one_that_document_names():
    pool = pool_of(DOCS)
    ask = ask_for("What government position did the actress who starred as Corliss Archer in Kiss and Tell hold?", pool)
    chain = chain_docs(ask, pool)
    assert chain[:2] == ["Kiss and Tell (1945 film)", "Shirley Temple"]
    texts = [s.text for s in chain_sentences(ask, pool, chain)]
    assert DOCS["Shirley Temple"][1] in texts  # the answer
    assert DOCS["Kiss and Tell (1945 film)"][1] in texts  # the bridge: it names Shirley Temple


def test_documents_that_do_not_name_each_other_make_no_chain():
    pool = pool_of({t: DOCS[t] for t in ("Shirley Temple", "Comedy film")})
    ask = ask_for("What government position did the actress who starred as Corliss Archer in Kiss and Tell hold?", pool)
    assert chain_docs(ask, pool) == []


def test_a_comparison_chains_the_two_documents_the_question_names():
    pool = pool_of(
        {
            "Lake Alpha": ["Lake Alpha is a lake in the north of the valley, 12 km long."],
            "Lake Beta": ["Lake Beta is a lake in the south of the valley, 30 km long."],
            "Valley railway": ["The valley railway runs along the river for 40 km between two towns."],
        }
    )
    ask = ask_for("Which is longer, Lake Alpha or Lake Beta?", pool)
    assert set(chain_docs(ask, pool)[:2]) == {"Lake Alpha", "Lake Beta"}


def test_a_question_about_code_gets_no_chain_of_documents():
    pool = pool_of(
        {
            "Python standard library: asyncio.runners": [
                "The runner uses asyncio.base_events to create an event loop."
            ],
            "Python standard library: asyncio.base_events": ["The base event loop of asyncio.runners is defined here."],
        }
    )
    for question in (
        "What does asyncio.run do?",
        "When does the else clause of a for loop run?",
        "How do I open a URL?",
    ):
        ask = ask_for(question, pool)
        assert not about_names(ask)
        assert chain_docs(ask, pool) == []


QUESTION = "What government position did the actress who starred as Corliss Archer in Kiss and Tell hold?"


def test_a_third_document_that_only_names_a_chain_document_joins_only_when_nearly_as_good(monkeypatch):
    """A page that names the answer's page (another film of the same actress) is a sibling, not a missing hop: it
    must come within SIBLING of the best pair, while one a chain document names may come within MARGIN."""
    import harness.engines.offline.chain as chain

    docs = dict(DOCS)
    docs["Bachelor Knight"] = [
        "Bachelor Knight is a 1947 comedy film in which Shirley Temple, the actress who starred as Corliss Archer, "
        "plays a teenage girl.",
        "It was directed by Irving Reis.",
    ]
    pool = pool_of(docs)
    ask = ask_for(QUESTION, pool)
    monkeypatch.setattr(chain, "MARGIN", 1.0)
    monkeypatch.setattr(chain, "SIBLING", 1.0)
    assert chain_docs(ask, pool)[2] == "Bachelor Knight"  # its pair (it names Shirley Temple) is the runner-up
    monkeypatch.setattr(chain, "SIBLING", 0.5)
    # Kiss and Tell names Meet Corliss Archer (in part): the chain leads there, so the wider MARGIN holds
    assert chain_docs(ask, pool) == ["Kiss and Tell (1945 film)", "Shirley Temple", "Meet Corliss Archer"]


def test_the_opening_of_a_document_the_question_names_comes_only_when_it_adds_a_question_word():
    docs = {
        "Kiss and Tell (1945 film)": [
            "Kiss and Tell is a 1945 American film directed by Richard Wallace.",
            "In Kiss and Tell, Shirley Temple starred as Corliss Archer, a teenage girl.",
        ],
        "Shirley Temple": DOCS["Shirley Temple"],
    }
    pool = pool_of(docs)
    ask = ask_for(QUESTION, pool)
    chain = chain_docs(ask, pool)
    texts = [s.text for s in chain_sentences(ask, pool, chain)]
    assert docs["Kiss and Tell (1945 film)"][1] in texts
    # the question names Kiss and Tell, and its opening holds no question word the best sentence lacks
    assert docs["Kiss and Tell (1945 film)"][0] not in texts
    # the question does not name Shirley Temple: her page's opening says who the answer is about
    assert set(docs["Shirley Temple"]) <= set(texts)
    # with a question word the best sentence lacks ("1945"), the named document's opening comes too
    ask = ask_for(QUESTION.replace("Kiss and Tell", "the 1945 Kiss and Tell"), pool)
    assert docs["Kiss and Tell (1945 film)"][0] in [s.text for s in chain_sentences(ask, pool, chain_docs(ask, pool))]


def test_a_second_best_sentence_comes_only_when_it_adds_a_question_word():
    repeat = "Shirley Temple held a government position as an adult."
    adds = "Shirley Temple, the actress, held the position of Chief of Protocol of the United States."
    for second, joins in ((repeat, False), (adds, True)):
        docs = {
            "Kiss and Tell (1945 film)": DOCS["Kiss and Tell (1945 film)"],
            "Shirley Temple": [*DOCS["Shirley Temple"], second],
        }
        pool = pool_of(docs)
        ask = ask_for(QUESTION, pool)
        texts = [s.text for s in chain_sentences(ask, pool, chain_docs(ask, pool))]
        assert DOCS["Shirley Temple"][1] in texts
        assert (second in texts) is joins


def test_a_document_links_to_a_title_it_writes_out_not_to_one_its_several_names_piece_together():
    from harness.engines.offline.chain import _links_to

    text = "The town was a station stop on the Chicago, Milwaukee, St. Paul and Pacific Railroad. John Lennon met Will Smith."
    names = ["Chicago", "Milwaukee", "St. Paul and Pacific Railroad", "John Lennon", "Will Smith"]
    assert _links_to("Chicago, Milwaukee, St. Paul and Pacific Railroad", text, names) == 1.0  # written out
    assert _links_to("Will Smith (actor)", text, names) == 1.0  # one named thing holds the title
    assert _links_to("John Smith", text, names) == 0.5  # only two names together: a partial name
    assert _links_to("Paul Simon", text, names) == 0.0
    # a title with a lower-case word no name holds, written out; a title's word written in lower case is no link
    assert _links_to("Anzac Day clash", "He debuted in the Anzac Day clash of 2015.", ["Anzac Day"]) == 1.0
    assert _links_to("Elephant (2003 film)", "An elephant walked by.", []) == 0.0


def test_a_title_pieced_together_from_a_documents_names_is_not_its_bridge():
    docs = {
        "Abbey Road Studio Tour": [
            "Abbey Road Studio Tour is a 2004 documentary presented by John Lennon and Will Smith.",
            "The tour was guided by Yoko Ono, who showed the studio's recording rooms.",
        ],
        "Yoko Ono": ["Yoko Ono is a Japanese artist, born in Tokyo in 1933."],
        "John Smith": ["John Smith is an English footballer, born in Leeds in 1933."],
    }
    pool = pool_of(docs)
    ask = ask_for("Where was the guide of Abbey Road Studio Tour born?", pool)
    chain = chain_docs(ask, pool)
    # both pages say where their subject was born; the tour's page names John Smith only by pieces of two names
    assert chain[:2] == ["Abbey Road Studio Tour", "Yoko Ono"]


def test_a_question_that_writes_a_title_out_names_that_document():
    docs = {
        "Anzac Day clash": ["The Anzac Day clash is an Australian rules football match first played in 1995."],
        "Boxing Day Test": ["The Boxing Day Test is a cricket match first played in 1950."],
        "Anzac Day": ["Anzac Day is a national day of remembrance in Australia and New Zealand."],
    }
    pool = pool_of(docs)
    ask = ask_for("Which was first played earlier, the Anzac Day clash or the Boxing Day Test?", pool)
    # "clash" is in no name the question writes, but the question writes the title out: a comparison of the two
    assert sorted(chain_docs(ask, pool)[:2]) == ["Anzac Day clash", "Boxing Day Test"]
