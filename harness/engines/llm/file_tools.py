"""The deepagents file tools a role may be offered, described as they behave in the harness.

deepagents' own descriptions are written for a coding agent (`read_file` reads 100 lines, `edit_file` needs a
read first, `grep` points to an `execute` tool, emojis), and every model call resends them: about 1,100
characters for `read_file` alone. Here each says what the tool does in a run workspace, as the guards make it
behave (`WholeReads`: whole files; `WorkspaceWriteGuard`: validated writes; evicted results under /scratch/).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from deepagents.middleware.filesystem import FsToolName

FS_TOOLS: tuple[FsToolName, ...] = ("ls", "read_file", "write_file", "edit_file", "glob", "grep")
WRITE_TOOLS = ("write_file", "edit_file")

DESCRIPTIONS = {
    "ls": "List the files and folders in a workspace folder (e.g. `/source-cards`).",
    "read_file": (
        "Read a workspace file. Returns the whole file below a `@@ … @@` status header (not part of the file); "
        "`offset` and `limit` (lines) read part of it. A tool result too large for the conversation is stored "
        "under /scratch/large_tool_results/ and its path given: read it here a part at a time."
    ),
    "write_file": (
        "Write a whole workspace file (replacing it if it exists). Every write is validated before it lands; "
        "a refused write says what is wrong and writes nothing."
    ),
    "edit_file": (
        "Replace `old_string` (exact text of the file, without read_file's `@@` header; unique unless "
        "`replace_all`) with `new_string` in a workspace file. Validated like a write."
    ),
    "glob": "Find workspace files whose path matches a glob pattern (`*`, `**`, `?`), e.g. `source-cards/*.json`.",
    "grep": "Find literal text (not a regex) in workspace files: the files that contain it, or the matching lines.",
}
