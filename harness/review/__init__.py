"""Reading drafts and checking them: the Reviewer's deterministic checks, run whatever the engine."""
