"""Engines: how a role runs (`llm` = a deepagents subagent; `offline`; a user's class)."""

from harness.engines.answer_encoder import install as _install_answer_encoder

_install_answer_encoder()  # every engine's answer check judges meaning with the one encoder (evidence/answer_meaning)
