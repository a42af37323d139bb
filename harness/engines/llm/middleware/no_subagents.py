"""`NoSubagents`: a deep agent with no `task` tool and no general-purpose subagent."""

from __future__ import annotations

from langchain.agents.middleware import AgentMiddleware


class NoSubagents(AgentMiddleware):
    """Occupies the `SubAgentMiddleware` slot of `create_deep_agent`, so the agent has no `task` tool.

    deepagents' own way (0.7) to run without `task` is a harness profile with
    `general_purpose_subagent=GeneralPurposeSubagentProfile(enabled=False)` and no `subagents=`.
    It is not used here because a profile is registered process-wide
    (`register_harness_profile`) and keyed by the model's provider: it would change every deep
    agent of that provider in the process (a user's own included), and a chat-model object
    passed in directly (tests, custom providers) may match no key at all. Passing our own
    middleware under the slot's name (`create_deep_agent` replaces a default middleware in place
    by a custom one of the same name; `excluded_middleware` refuses to drop this protected one)
    works per agent, whatever the model. `DeepAgentRole._compile` also passes a placeholder "general-purpose" subagent, so
    no default general-purpose subagent is built.
    """

    tools = ()

    @property
    def name(self) -> str:
        return "SubAgentMiddleware"
