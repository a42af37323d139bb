"""What the evidence says about a draft: draft parsing, the lexical support rule, the Reviewer's
deterministic checks, the final-report renderer and the run metrics. Run whatever the engine."""
