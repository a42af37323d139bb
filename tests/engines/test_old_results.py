"""Old source-tool results shrink to the ids and spans they showed once a conversation grows; recent ones and
the model's own calls stay whole."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.messages.utils import count_tokens_approximately

from harness.engines.llm.middleware.old_results import MARK, ShortenOldResults, shortened

PAGE = (
    "<<<SOURCE src-0123456789ab title='Grid storage' url='http://127.0.0.1:1/a' kind='secondary' start=40 end=1840 total=52000\n"
    + "word " * 400
    + "\nSOURCE>>>\n\nShowing 1 passage(s)."
)


def conversation(n: int) -> list:
    msgs = [HumanMessage("Find evidence for Q1.")]
    for i in range(n):
        msgs.append(AIMessage("", tool_calls=[{"name": "fetch_url", "args": {"url": f"http://x/{i}"}, "id": f"c{i}"}]))
        msgs.append(ToolMessage(PAGE.replace("0123456789ab", f"{i:012d}"), name="fetch_url", tool_call_id=f"c{i}"))
    msgs.append(AIMessage("", tool_calls=[{"name": "record_evidence", "args": {}, "id": "r"}]))
    msgs.append(ToolMessage("Recorded evidence card q1-src-000000000000-1.", name="record_evidence", tool_call_id="r"))
    return msgs


def test_old_page_results_shrink_to_their_sources_and_the_recent_stay():
    msgs = conversation(6)
    before = count_tokens_approximately(msgs)
    ShortenOldResults(trigger=500, keep=2).apply(msgs, count_tokens=count_tokens_approximately)
    results = [m for m in msgs if isinstance(m, ToolMessage)]
    # the two most recent results that showed sources stay whole; the record_evidence reply does not count
    assert [r.content.startswith(MARK) for r in results] == [True, True, True, True, False, False, False]
    assert "src-000000000000 'Grid storage' 'http://127.0.0.1:1/a' 40-1840 of 52000" in results[0].content
    assert "read_source" in results[0].content
    assert results[5].content == PAGE.replace("0123456789ab", f"{5:012d}")
    assert count_tokens_approximately(msgs) < before / 2
    assert all(m.tool_calls for m in msgs if isinstance(m, AIMessage))  # the model's own calls are kept


def test_a_short_conversation_is_left_alone_and_shortening_is_idempotent():
    msgs = conversation(4)
    ShortenOldResults(trigger=10**6).apply(msgs, count_tokens=count_tokens_approximately)
    assert not any(isinstance(m, ToolMessage) and m.content.startswith(MARK) for m in msgs)
    edit = ShortenOldResults(trigger=500, keep=1)
    edit.apply(msgs, count_tokens=count_tokens_approximately)
    once = [m.content for m in msgs]
    edit.apply(msgs, count_tokens=count_tokens_approximately)
    assert [m.content for m in msgs] == once


def test_a_search_result_lists_every_source_it_showed():
    content = "\n\n".join(
        f"<<<SOURCE src-{i:012d} title='T{i}' path='p' kind='primary' start=0 end=9\ntext\nSOURCE>>>" for i in range(3)
    )
    out = shortened("search", content)
    assert all(f"src-{i:012d} 'T{i}' 0-9" in out for i in range(3))


def test_refusals_do_not_push_the_last_passages_out_of_view():
    """A model that keeps searching past its budget gets refusals; the passages it saw last must stay readable."""
    msgs = conversation(3)
    for i in range(4):
        msgs.append(AIMessage("", tool_calls=[{"name": "search", "args": {"query": f"q{i}"}, "id": f"s{i}"}]))
        msgs.append(
            ToolMessage(
                "No search was made: the step budget for searches is exhausted.", name="search", tool_call_id=f"s{i}"
            )
        )
    ShortenOldResults(trigger=500, keep=2).apply(msgs, count_tokens=count_tokens_approximately)
    pages = [m for m in msgs if isinstance(m, ToolMessage) and m.name == "fetch_url"]
    assert [p.content.startswith(MARK) for p in pages] == [True, False, False]


def test_a_shortened_web_search_keeps_each_source_its_title_and_url():
    content = "\n\n".join(
        f"<<<SOURCE src-{i:012d} title='T{i}' url='http://127.0.0.1:1/{i}' start=5 end=9 total=900\ntext\nSOURCE>>>"
        for i in (1, 2)
    )
    out = shortened("web_search", content)
    assert all(f"src-{i:012d} 'T{i}' 'http://127.0.0.1:1/{i}' 5-9 of 900" in out for i in (1, 2))
    assert "read_source(source_id, offset)" in out
