"""The llm engine's guards, one middleware per concern and per module.

- `WorkspaceWriteGuard`: `write_file` / `edit_file` land only through `ctx.write` (role
  globs, the brief's declared outputs, schema, cross-file checks, atomic write, run.json
  index); a refusal goes back to the model as an error it can fix, and the retry bound
  ends the step.
- `ToolAllowlist`: the model is offered exactly the spec's tools and may call nothing else.
- `WholeReads`: `read_file` returns whole files unless the model asks for a window.
- `BudgetGuard`: every model call is checked against the budgets before it is made and
  charged after (a failed call too).
- `ProviderRetry`: provider faults (429, 5xx, timeouts, dropped connections, empty replies,
  MALFORMED_FUNCTION_CALL) are retried with backoff, bounded; each attempt passes `BudgetGuard`.
- `NoSubagents`: takes the `SubAgentMiddleware` slot of a deep agent, so there is no
  `task` tool and no general-purpose subagent.
- `budgeted_summarization`: deepagents' summarization, with its model calls charged too.
- `shorten_old_results`: past a conversation size, earlier source-tool results (pages, search
  hits, windows) shrink to the ids and spans they showed (langchain's context editing).
- `ToolCallCheck`: a tool call that cannot run (arguments not JSON, unknown argument names, a
  tool that does not exist, a reply cut off at the output limit) is answered with an error
  naming what to fix, and the model asked again; a bound of its own, in a row, ends the step.
- `EndWhenWritten`: a step whose declared outputs have all landed ends without another model
  call (not a role whose outputs come through a service: a Researcher decides when it is done).
- `ContextWindowFit`: a prompt too long for the model's context window is cut (its largest
  message, saying how to read less) and the call made again.

Each provides sync and async hooks (langchain calls `awrap_*` under `ainvoke`/`astream`).
The middleware is built once per role and run and shared by concurrent delegations: what
belongs to one delegation (its `AgentContext`, its retry loop) comes from the runtime
context of the call (`invocation.of(request.runtime)`), never from an attribute.
"""

from harness.engines.llm.middleware.budget_guard import BudgetGuard, estimate_tokens, last_call_notice
from harness.engines.llm.middleware.call_check import (
    DEFAULT_MALFORMED_REPLIES,
    MalformedReplies,
    ToolCallCheck,
    malformed_sentence,
)
from harness.engines.llm.middleware.context_window import ContextWindowFit
from harness.engines.llm.middleware.end_when_written import EndWhenWritten
from harness.engines.llm.middleware.no_subagents import NoSubagents
from harness.engines.llm.middleware.old_results import shorten_old_results
from harness.engines.llm.middleware.provider_retry import ProviderRetry
from harness.engines.llm.middleware.summarization import budgeted_summarization
from harness.engines.llm.middleware.tool_allowlist import ToolAllowlist
from harness.engines.llm.middleware.whole_reads import WholeReads
from harness.engines.llm.middleware.write_guard import WorkspaceWriteGuard

__all__ = [
    "DEFAULT_MALFORMED_REPLIES",
    "BudgetGuard",
    "ContextWindowFit",
    "EndWhenWritten",
    "MalformedReplies",
    "ToolCallCheck",
    "malformed_sentence",
    "NoSubagents",
    "ProviderRetry",
    "ToolAllowlist",
    "WholeReads",
    "WorkspaceWriteGuard",
    "budgeted_summarization",
    "estimate_tokens",
    "last_call_notice",
    "shorten_old_results",
]
