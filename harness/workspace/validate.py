"""`research validate`: every schema and cross-file check, over a whole workspace.

Read-only. Works on any folder that looks like a run, including one edited by hand,
and reports each problem on one line (file, JSON pointer, rule).
"""

from __future__ import annotations

import json
from pathlib import Path

from harness.contract.formats import sha256_bytes
from harness.contract.layout import AUDITED_DIRS, FINAL_REPORT, RUN, TRACE, ArtifactKind, kind_for_path
from harness.contract.schemas import json_pointer, validate
from harness.errors import Problem
from harness.workspace.integrity import check
from harness.workspace.journal import WriteJournal
from harness.workspace.reader import RunReader
from harness.workspace.trace import read_events


def _check_trace(root: Path) -> list[Problem]:
    problems: list[Problem] = []
    path = root / TRACE
    if not path.is_file():
        return [Problem(TRACE, "", "exists", "trace.jsonl is missing")]
    last = 0
    with path.open("rb") as fh:
        for n, raw in enumerate(fh, start=1):
            try:
                event = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                problems.append(Problem(TRACE, f"line {n}", "json", "not a JSON object"))
                continue
            for p in validate(event, "trace-event.schema.json", TRACE):
                problems.append(Problem(TRACE, f"line {n}{p.pointer}", p.rule, p.message))
            seq = event.get("seq") if isinstance(event, dict) else None
            if isinstance(seq, int):
                if seq <= last:
                    problems.append(Problem(TRACE, f"line {n}/seq", "seq-order", f"seq {seq} does not follow {last}"))
                last = seq
    return problems


def _rewritten_cards(root: Path) -> list[Problem]:
    """A card is written once: the trace showing one card path written again with other content (and not
    deleted between) means the first card was overwritten, and its evidence lost."""
    problems: list[Problem] = []
    written: dict[str, tuple[object, object]] = {}  # card path -> (sha256, seq) of its last write
    for event in read_events(root):
        rel = event.get("path")
        kind = kind_for_path(rel) if isinstance(rel, str) else None
        if kind is None or kind.name != "card" or not isinstance(rel, str):
            continue
        if event.get("event") == "delete":
            written.pop(rel, None)
        elif event.get("event") == "write":
            before = written.get(rel)
            if before is not None and before[0] != event.get("sha256"):
                problems.append(
                    Problem(
                        rel,
                        "",
                        "card-written-once",
                        f"trace.jsonl shows this card written twice with different content (seq {before[1]} "
                        f"and {event.get('seq')}): the first card's evidence was overwritten",
                    )
                )
            written[rel] = (event.get("sha256"), event.get("seq"))
    return problems


def parent_folder(run_dir: Path, parent: dict) -> Path:
    """Where a follow-up's parent (run.json `parent`) is: its `path` read from the folder holding the run, so a
    copied pair of folders finds it (an absolute path, as runs before issue 42 recorded, stays as it was)."""
    return Path(run_dir).parent / str(parent.get("path", ""))


def check_parent(root: Path, run: dict) -> list[Problem]:
    """A follow-up's parent, where it is found, is the run it names: same run id, same final report. A follow-up is
    auditable without its parent (it holds copies of what it uses), so a parent that is not there is no problem."""
    parent = run.get("parent")
    if not isinstance(parent, dict) or not parent.get("path"):
        return []
    folder = parent_folder(root, parent)
    if not (folder / RUN).is_file():
        return []
    found = RunReader(folder).run()
    if found.get("run_id") != parent.get("run_id"):
        return [Problem(RUN, "/parent/path", "parent", f"{folder} holds run {found.get('run_id')}, not the parent")]
    report = folder / FINAL_REPORT
    if parent.get("report_sha256") and (
        not report.is_file() or sha256_bytes(report.read_bytes()) != parent["report_sha256"]
    ):
        return [Problem(RUN, "/parent/report_sha256", "parent", f"{report}: not the final report this run followed")]
    return []


def validate_workspace(root: Path | str) -> list[Problem]:
    """All problems found in the workspace at `root`; empty when it is clean."""
    root = Path(root)
    if not (root / RUN).is_file():
        return [Problem(str(root), "", "workspace", "not a run workspace (no run.json)")]
    reader = RunReader(root, cache=True)
    problems: list[Problem] = []
    files = reader.files()
    index = reader.run().get("artifacts", {})
    if not isinstance(index, dict):
        index = {}
    journal = WriteJournal(root)
    pending = journal.pending_writes()
    for rel in files:
        problems.extend(_check_file(root, rel, reader, index, pending))
    problems.extend(_missing_artifacts(set(files), index, journal, pending))
    if TRACE not in files:
        problems.extend(_check_trace(root))
    else:
        problems.extend(_rewritten_cards(root))
    problems.extend(check_parent(root, reader.run()))
    return problems


def _check_file(root: Path, rel: str, reader: RunReader, index: dict, pending: dict) -> list[Problem]:
    """One file of the workspace: where it may be, that it parses and meets its schema and its kind's cross-file
    checks, and that run.json's artifact index (or the write journal) holds its content."""
    if (root / rel).is_symlink():
        return [Problem(rel, "", "no-symlinks", "symbolic links are not allowed in a workspace")]
    kind = kind_for_path(rel)
    if kind is None:
        if rel.split("/", 1)[0] in AUDITED_DIRS:
            return [Problem(rel, "", "artifact-path", "unexpected file in an audited folder")]
        return []
    if kind.name == "trace":
        return _check_trace(root)
    data = reader.read_bytes(rel) or b""
    value, problems = _parsed(rel, kind, data)
    if problems:
        return problems
    problems = list(check(kind.name, rel, value, reader))
    if kind.indexed:
        problems.extend(_index_problems(rel, sha256_bytes(data), index, pending))
    return problems


def _parsed(rel: str, kind: ArtifactKind, data: bytes) -> tuple[object, list[Problem]]:
    """The file's content as its kind reads it (UTF-8 text; a JSON value meeting its schema), or why it cannot be:
    a file that does not parse gets no further check."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, [Problem(rel, "", "utf-8", "not UTF-8 text")]
    if kind.fmt != "json":
        return text, []
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, [Problem(rel, "/", "json", f"not valid JSON: {exc.msg} at line {exc.lineno}")]
    return value, validate(value, kind.schema, rel) if kind.schema else []  # every json kind has one


def _index_problems(rel: str, digest: str, index: dict, pending: dict) -> list[Problem]:
    """An indexed artifact must be in run.json's index with its content's hash (or in the write journal, when a
    crash came between the write and run.json's rewrite): else it was written outside the workspace API."""
    entry = index.get(rel)
    journalled = pending.get(rel, {}).get("sha256") == digest
    if entry is None and not journalled:
        why = "not in run.json's artifact index (written outside the workspace API)"
    elif entry is not None and entry.get("sha256") != digest and not journalled:
        why = "content differs from run.json's artifact index (changed outside the workspace API)"
    else:
        return []
    return [Problem(rel, "", "artifact-index", why)]


def _missing_artifacts(present: set[str], index: dict, journal: WriteJournal, pending: dict) -> list[Problem]:
    """Artifacts run.json indexes, or the journal holds, whose files are gone."""
    problems = [
        Problem(RUN, json_pointer(["artifacts", rel]), "artifact-exists", f"indexed artifact {rel} is missing")
        for rel in index
        if rel not in present
    ]
    for rel in sorted(set(pending) - set(index) - present):
        # A journalled write not yet in run.json (it gets there with the next rewrite): its file
        # must exist, unless the crash came before the rename (then its temp file is still there).
        if not journal.rename_pending(rel, pending[rel]):
            problems.append(Problem(rel, "", "artifact-exists", f"journalled artifact {rel} is missing"))
    return problems
