"""Engines: how a role runs (`llm` = a deepagents subagent; `offline`; a user's class)."""
