"""Test doubles shared by the suite: scripted chat models, the local Gemini stub, the adversarial model,
custom agents, and fixture workspaces and corpora."""
