"""The `llm` engine: each role runs as a deepagents agent over the run workspace (`agent.DeepAgentRole`).

Import cost: its modules import deepagents and langchain, so import them only when a role
actually runs on the llm engine (this package file imports nothing).
"""
