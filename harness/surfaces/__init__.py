"""The outer surfaces: the `research` command line, the LangGraph Server graph, the terminal
approver, the progress display, the run summary, the eval runner and the HTML viewer."""

from harness.engines import answer_encoder

answer_encoder.install()  # `research validate` re-judges answers as the run did: with the judge of meaning
