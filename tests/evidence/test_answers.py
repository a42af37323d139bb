"""The answer check (evidence/answers.py): each kind of answer, answered and not, and the rules around it.

Questions and quotes are written here by hand, the way a learner asks and a manual answers; each
case states what a reader would say of the quotes, and the check must say the same.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fakes.workspaces import SOURCE_ID, SOURCE_TEXT, make_card, make_plan, source_record
from harness.contract.statuses import ANSWERED, NOT_ANSWERED, PARTLY
from harness.evidence.answer_rule import Finding, ask_of, judge
from harness.evidence.answers import answer_problems, answer_verdicts, gap_notes, heading_above, heading_only
from harness.workspace.reader import RunReader


def verdict(question: str, quotes: list[str], criteria: list[str] | None = None, context: str = ""):
    ask = ask_of({"id": "Q1", "text": question, "criteria": criteria or []})
    return judge(ask, [Finding(q, context) for q in quotes])


CASES = [
    # what is: a definition or statement of the subject
    ("What is a closure?", ["Closures are anonymous functions you can save in a variable."], None, ANSWERED),
    ("What is a closure?", ["Closures"], None, NOT_ANSWERED),
    ("What is a closure?", ["Iterators are lazy, so nothing happens until you consume them."], None, NOT_ANSWERED),
    # how do I: a step, command, setting or code name
    (
        "How do I run only one specific test?",
        ["To run a single test, pass its name to the test runner: cargo test one_hundred."],
        None,
        ANSWERED,
    ),
    (
        "How do I run only one specific test?",
        ["You can exclude slow tests by marking them with an attribute.", "cfg stands for configuration."],
        None,
        NOT_ANSWERED,
    ),
    (
        "How do I print error messages to standard error?",
        ["Yup, our error message is being printed to standard output."],
        None,
        NOT_ANSWERED,
    ),
    (
        "How do I print error messages to standard error?",
        ["Use the eprintln! macro to print error messages to standard error."],
        None,
        ANSWERED,
    ),
    # a comparison: each side on each criterion
    (
        "How do asyncio.TaskGroup and asyncio.gather differ in error handling?",
        ["A TaskGroup handles an error by cancelling the other tasks.", "gather() propagates the first error raised."],
        ["error handling"],
        ANSWERED,
    ),
    (
        "How do asyncio.TaskGroup and asyncio.gather differ in error handling?",
        ["A TaskGroup handles an error by cancelling the other tasks."],
        ["error handling"],
        PARTLY,
    ),
    (
        "How do asyncio.TaskGroup and asyncio.gather differ in error handling?",
        ["Tasks are scheduled on the running event loop."],
        ["error handling"],
        NOT_ANSWERED,
    ),
    # one side of a comparison plan: the question's criteria
    (
        "What do the sources say about asyncio.TaskGroup with respect to error handling, cancellation?",
        ["When a task fails with an error, the TaskGroup cancels the remaining tasks."],
        ["error handling", "cancellation"],
        ANSWERED,
    ),
    (
        "What do the sources say about asyncio.TaskGroup with respect to error handling, cancellation?",
        ["A TaskGroup cancels the remaining tasks when the body exits early."],
        ["error handling", "cancellation"],
        PARTLY,
    ),
    # a number, a date, a name, a reason when one is asked for
    (
        "How large are the tides at Marrowby harbour?",
        ["Spring tides at Marrowby harbour rise by 9 metres."],
        None,
        ANSWERED,
    ),
    (
        "How large are the tides at Marrowby harbour?",
        ["Marrowby harbour copes with its tides by closing the tide gates."],
        None,
        NOT_ANSWERED,
    ),
    (
        "How large are the tides at Marrowby harbour, and what does the harbour do about them?",
        ["Marrowby harbour closes its tide gates when the water is high."],
        None,
        NOT_ANSWERED,
    ),
    (
        "When was asyncio.TaskGroup added?",
        ["asyncio.TaskGroup holds a group of tasks. Added in version 3.11."],
        None,
        ANSWERED,
    ),
    ("When was asyncio.TaskGroup added?", ["asyncio.TaskGroup holds a group of tasks."], None, NOT_ANSWERED),
    (
        "Who maintains the requests library?",
        ["The requests library is maintained by the Python Software Foundation."],
        None,
        ANSWERED,
    ),
    ("Which Larkspur release added rate limits?", ["Rate limits were added to Larkspur in 2.3."], None, ANSWERED),
    (
        "Which Larkspur release added rate limits?",
        ["Larkspur can limit the rate of jobs per queue."],
        None,
        NOT_ANSWERED,
    ),
    ("Who maintains the requests library?", ["The requests library is maintained by volunteers."], None, NOT_ANSWERED),
    ("Why does Larkspur retry failed jobs?", ["Larkspur retries failed jobs because workers crash."], None, ANSWERED),
    ("Why does Larkspur retry failed jobs?", ["Larkspur retries failed jobs up to 3 times."], None, NOT_ANSWERED),
    # how do I (issue 38 item 5): a step is an instruction or a command named as such, not a code name in passing
    (
        "How do I make Larkspur keep its job logs inside the project folder?",
        ["Before a job starts, Larkspur creates a log folder for the project and reads `logging.handlers`."],
        None,
        NOT_ANSWERED,
    ),
    (
        "How do I make Larkspur keep its job logs inside the project folder?",
        ["The `--local-logs` flag makes Larkspur keep job logs in a folder inside the project."],
        None,
        ANSWERED,
    ),
    (
        "How do I cancel a Larkspur job?",
        ["A waiting job can be cancelled with `larkspur cancel JOB_ID`."],
        None,
        ANSWERED,
    ),
    ("How do I cancel a Larkspur job?", ["A Larkspur job is cancelled when its worker stops."], None, NOT_ANSWERED),
    # ... and a step about the question's focus, not any step under its name
    (
        "How do I bump the Larkspur version?",
        ["Use `--locked` to assert that the Larkspur lockfile is up to date."],
        None,
        NOT_ANSWERED,
    ),
    (
        "How do I bump the Larkspur version?",
        ["Use `larkspur version --bump minor` to bump the project's version."],
        None,
        ANSWERED,
    ),
    # a question, a pointer elsewhere or the asker's own voice answers nothing
    (
        "How do I install a Larkspur plugin?",
        [
            "See `larkspur plugin --help` for how to install a plugin.",
            "I want to install a Larkspur plugin for `my_app`?",
        ],
        None,
        NOT_ANSWERED,
    ),
    (
        "How do I install a Larkspur plugin?",
        ["But you want to install a plugin from your own index? Run `larkspur plugin add NAME` to install a plugin."],
        None,
        ANSWERED,
    ),
    # what is: what the subject is or does, not a state of it, and not a sentence about something else
    (
        "What is an unsafe fix in Larkspur?",
        [
            "By default, Larkspur shows a hint when unsafe fixes are available.",
            "Note this rule is unlike unsafe fixes.",
        ],
        None,
        NOT_ANSWERED,
    ),
    (
        "What is an unsafe fix in Larkspur?",
        ["In Larkspur, an unsafe fix is a fix that may change what the program does at runtime."],
        None,
        ANSWERED,
    ),
    ("What does the larkspur sync command do?", ["Workers are processes that poll the queue."], None, NOT_ANSWERED),
    (
        "What does the larkspur sync command do?",
        ["The `sync` command makes the queue match the schedule file."],
        None,
        ANSWERED,
    ),
    # when should I: a circumstance or a recommendation, not a date
    (
        "When should I use a gauge instead of a counter?",
        ["Use a gauge when the value can go down, such as memory in use; a counter only goes up."],
        None,
        ANSWERED,
    ),
    ("When should I use a gauge instead of a counter?", ["Gauges and counters were added in 2.1."], None, NOT_ANSWERED),
    # a step says how: it names a command, option or setting, not only that it can be done
    (
        "How do I disable timeouts for a Larkspur job?",
        ["In Larkspur, you can also disable the timeout behavior completely."],
        None,
        NOT_ANSWERED,
    ),
    (
        "How do I disable timeouts for a Larkspur job?",
        ["In Larkspur, pass `timeout=None` to disable the timeout of a job."],
        None,
        ANSWERED,
    ),
    # when is X ...: a circumstance; when should I: advice, not the tool's own behaviour
    ("When is a Larkspur job retried?", ["A Larkspur job is retried if its worker crashes."], None, ANSWERED),
    ("When is a Larkspur job retried?", ["Larkspur jobs are retried by the scheduler."], None, NOT_ANSWERED),
    (
        "When should I turn on strict mode in Larkspur?",
        ["Larkspur turns strict mode on if the config file is empty."],
        None,
        NOT_ANSWERED,
    ),
    (
        "When should I turn on strict mode in Larkspur?",
        ["Turn on strict mode when you deploy Larkspur to production, so warnings stop the build."],
        None,
        ANSWERED,
    ),
    # what is X in Y: X is the subject of the definition, not Y
    (
        "What are hooks in Larkspur?",
        ["Larkspur commands run from the folder that contains the hook configuration."],
        None,
        NOT_ANSWERED,
    ),
    ("What are hooks in Larkspur?", ["In Larkspur, hooks are Python scripts loaded as plugins."], None, ANSWERED),
    # "may" is a modal, not a month
    (
        "Which Larkspur release added rate limits?",
        ["Larkspur may limit the rate of jobs per queue."],
        None,
        NOT_ANSWERED,
    ),
    ("Which Larkspur release added rate limits?", ["Rate limits came to Larkspur on 3 May 2024."], None, ANSWERED),
    # anything else: a statement naming the subject
    ("How does Larkspur retry failed jobs?", ["Larkspur retries failed jobs up to 3 times."], None, ANSWERED),
    ("How does Larkspur retry failed jobs?", ["Tern schedules periodic jobs with cron syntax."], None, NOT_ANSWERED),
]


@pytest.mark.parametrize("question, quotes, criteria, expected", CASES)
def test_each_kind_of_answer_answered_and_not(question, quotes, criteria, expected):
    v = verdict(question, quotes, criteria)
    assert v.verdict == expected, v.reason
    assert v.reason and "\n" not in v.reason


def test_when_should_asks_for_advice_when_is_for_a_circumstance_and_when_was_for_a_date():
    def labels(text):
        return [r.label for r in ask_of({"id": "Q1", "text": text}).requirements]

    assert labels("When should I use a gauge instead of a counter?") == ["a recommendation or circumstance"]
    assert labels("When is a PoolTimeout raised?") == ["a circumstance, date or version"]
    assert labels("When was asyncio.TaskGroup added?") == ["a date or version"]


def test_a_condition_before_the_question_is_not_what_it_asks():
    def labels(text):
        return [r.label for r in ask_of({"id": "Q1", "text": text}).requirements]

    assert labels("When taking a lock on one server, why must the lock's value be unique?") == ["a reason"]
    assert labels("When setting template variables, when do I use := and when do I use =?") == [
        "a recommendation or circumstance"
    ]
    assert labels("When taking a lock on one server, when was the lock command added?") == ["a date or version"]
    # without a comma there is no condition: the question asks when
    assert labels("When was the lock command added?") == ["a date or version"]


def test_use_x_to_do_y_advises_when_to_use_it():
    question = "When should I use a gauge rather than a counter in Larkspur?"
    assert verdict(question, ["In Larkspur, use a gauge to track a value that goes up and down."]).verdict == ANSWERED
    assert verdict(question, ["In Larkspur, a gauge is a metric type and a counter is another."]).verdict != ANSWERED


def test_you_will_need_is_an_instruction():
    question = "How do I make asynchronous requests with Larkspur?"
    quote = "To make asynchronous requests, you'll need an `AsyncClient`."
    assert verdict(question, [quote, "Larkspur is a job queue."]).verdict == ANSWERED
    assert (
        verdict(question, ["To make asynchronous requests, you'll need patience.", "Larkspur is a job queue."]).verdict
        == NOT_ANSWERED
    )


def test_no_finding_is_not_answered_and_says_so():
    v = verdict("What is a closure?", [])
    assert (v.verdict, v.reason) == (NOT_ANSWERED, "no finding is cited for it")


def test_the_subject_may_be_named_by_the_heading_above_the_quote_but_the_answer_must_be_in_the_quote():
    quote = "The first time any of the tasks fails, the remaining tasks in the group are cancelled."
    question = "How does asyncio.TaskGroup handle a failing task?"
    assert verdict(question, [quote]).verdict == NOT_ANSWERED
    assert verdict(question, [quote], context="asyncio.TaskGroup").verdict == ANSWERED
    assert (
        verdict("When was asyncio.TaskGroup added?", [quote], context="asyncio.TaskGroup 3.11").verdict == NOT_ANSWERED
    )


def test_a_reason_says_what_is_missing():
    v = verdict(
        "How do asyncio.TaskGroup and asyncio.gather differ in error handling?",
        ["A TaskGroup handles an error."],
        ["error handling"],
    )
    assert v.verdict == PARTLY
    assert "gather" in v.reason and "error handling for TaskGroup" in v.reason


def test_a_heading_or_a_page_title_is_never_a_finding():
    title = "Marrowby's tide gates: how the harbour copes"
    assert heading_only(title, title)
    assert heading_only(
        "Running a Subset of Tests", "", "Intro text.\nRunning a Subset of Tests\nSometimes you run one."
    )
    # a sentence, or a command line of the source, is a finding
    assert not heading_only(
        "Sometimes you run one.", "", "Intro text.\nRunning a Subset of Tests\nSometimes you run one."
    )
    assert not heading_only("cargo test one_hundred", "", "Run it:\ncargo test one_hundred\n")
    text = "Intro.\n\nasyncio.TaskGroup\n\nAn asynchronous context manager.\nIt holds tasks."
    assert heading_above(text, text.index("It holds")) == "asyncio.TaskGroup"  # the heading paragraph above
    text = "Intro.\n\nclass TaskGroup\nAn asynchronous context manager."
    assert (
        heading_above(text, text.index("An asynchronous")) == "class TaskGroup"
    )  # the signature opening its paragraph
    text = "A sentence that ends,\nwrapped.\n\nThe quote."
    assert heading_above(text, text.index("The quote")) == ""  # a wrapped sentence is no heading
    text = "Intro.\n\nReturn a future aggregating results\nfrom the tasks. The quote."
    assert heading_above(text, text.index("The quote")) == ""


# ---- on a run folder -------------------------------------------------------------------------

STATEMENT = "A TaskGroup cancels its remaining tasks when one fails."


def build(root: Path, quote_card: dict | None = None, question: str = "How does asyncio.TaskGroup handle failures?"):
    root.mkdir(parents=True, exist_ok=True)
    plan = make_plan()
    plan["questions"][0]["text"] = question
    (root / "plan.json").write_text(json.dumps(plan))
    for folder in ("sources", "source-cards", "drafts"):
        (root / folder).mkdir(exist_ok=True)
    (root / "sources" / f"{SOURCE_ID}.txt").write_text(SOURCE_TEXT, encoding="utf-8")
    (root / "sources" / f"{SOURCE_ID}.json").write_text(json.dumps(source_record(SOURCE_TEXT, SOURCE_ID)))
    card = quote_card or make_card(card_id="q1-src-0123456789ab-1")
    (root / "source-cards" / f"{card['card_id']}.json").write_text(json.dumps(card))
    claim = {
        "claim_id": "C1",
        "statement": STATEMENT,
        "question_id": "Q1",
        "supporting_cards": [card["card_id"]],
        "contradicting_cards": [],
        "limitations": [],
        "status": "verified",
    }
    (root / "claims.json").write_text(json.dumps({"claims": [claim]}))
    return RunReader(root)


def test_the_verdict_reads_only_the_claims_the_draft_cites(tmp_path):
    reader = build(tmp_path)
    cited = answer_verdicts(reader, f"# T\n\n{STATEMENT} [@C1].\n")
    assert [(v.question_id, v.verdict, v.claims) for v in cited] == [("Q1", ANSWERED, ("C1",))]
    uncited = answer_verdicts(reader, "# T\n\n*Nothing is cited.*\n")
    assert [(v.verdict, v.claims) for v in uncited] == [(NOT_ANSWERED, ())]


def test_a_claim_quoting_only_its_sources_heading_answers_nothing(tmp_path):
    heading = make_card(card_id="q1-src-0123456789ab-2") | {
        "quote": "asyncio.TaskGroup",
        "span": {"start": 0, "end": 17},
    }
    reader = build(tmp_path, heading, "What is asyncio.TaskGroup?")
    [v] = answer_verdicts(reader, f"# T\n\n{STATEMENT} [@C1].\n")
    assert v.verdict == NOT_ANSWERED


def test_gap_notes_say_each_open_question_in_plain_words():
    records = [
        {"question_id": "Q1", "question": "How do I run one test?", "verdict": NOT_ANSWERED, "reason": "r1"},
        {"question_id": "Q2", "question": "What is X?", "verdict": PARTLY, "reason": "r2"},
        {"question_id": "Q3", "question": "Why?", "verdict": ANSWERED, "reason": "r3"},
    ]
    assert gap_notes(records) == (
        "- Not answered from the sources: Q1 (How do I run one test?): r1.\n"
        "- Only partly answered from the sources: Q2 (What is X?): r2."
    )
    assert gap_notes(records[2:]) is None


def test_validate_finds_verdicts_that_are_not_the_checks(tmp_path):
    reader = build(tmp_path)
    (tmp_path / "drafts" / "draft-1.md").write_text(f"# T\n\n{STATEMENT} [@C1].\n")
    metrics = {"report": "drafts/draft-1.md", "answers": [{"question_id": "Q1", "verdict": ANSWERED}]}
    (tmp_path / "metrics.json").write_text(json.dumps(metrics))
    assert answer_problems(RunReader(tmp_path)) == []
    metrics["answers"][0]["verdict"] = NOT_ANSWERED  # edited by hand
    (tmp_path / "metrics.json").write_text(json.dumps(metrics))
    [p] = answer_problems(RunReader(tmp_path))
    assert p.rule == "answer-verdict" and "Q1" in p.message
    del metrics["answers"]
    (tmp_path / "metrics.json").write_text(json.dumps(metrics))
    assert [p.rule for p in answer_problems(reader)] == ["answer-verdicts"]


def test_validate_finds_a_report_that_hides_an_open_question_or_invents_one(tmp_path):
    build(tmp_path)
    (tmp_path / "drafts" / "draft-1.md").write_text("# T\n\n*Nothing is cited.*\n")
    metrics = {"report": "drafts/draft-1.md", "answers": [{"question_id": "Q1", "verdict": NOT_ANSWERED}]}
    (tmp_path / "metrics.json").write_text(json.dumps(metrics))
    (tmp_path / "final-report.md").write_text("# T\n\n## Limitations\n\n- None.\n")
    assert [p.rule for p in answer_problems(RunReader(tmp_path))] == ["answer-stated"]
    (tmp_path / "final-report.md").write_text("# T\n\n## Limitations\n\n- Not answered from the sources: Q1 (x): y.\n")
    assert answer_problems(RunReader(tmp_path)) == []


def test_a_long_question_needs_four_of_its_topic_words_not_half():
    question = (
        "If the same number or string literal appears twice in my program, can I rely on getting the same object?"
    )
    quote = "Multiple evaluations of literals with the same value may obtain the same object or a different one."
    assert verdict(question, [quote], context="Literals in the program text").verdict == ANSWERED
    assert verdict(question, ["Evaluation of a literal yields an object."]).verdict == NOT_ANSWERED


def test_a_name_every_source_holds_does_not_make_any_quote_an_answer():
    question = "Is there a maximum length for a variable name in Python, and does case matter?"
    off = "The lower and upper bound expressions are evaluated, and the sequence's length is added to a negative bound."
    assert verdict(question, [off], context="Python language reference").verdict == NOT_ANSWERED
    on = "Identifiers are unlimited in length, and case is significant in a variable name."
    assert verdict(question, [on], context="Python language reference").verdict == ANSWERED


def test_a_name_the_tokenizer_drops_is_matched_as_a_word():
    question = "Does calling type(None)() create a new object distinct from None?"
    assert (
        verdict(question, ["Calling type(None)() returns the singleton None: it does not create a new object."]).verdict
        == ANSWERED
    )
    assert verdict(question, ["It creates a new instance of the class."]).verdict == NOT_ANSWERED


def test_words_that_only_frame_a_choice_are_not_its_subject():
    ask = ask_of(
        {"id": "Q1", "text": "When is it worth calling a partial through partialCached rather than plain partial?"}
    )
    assert not {"rather", "than", "worth", "through", "plain"} & ask.words
    assert "partial" in ask.words
