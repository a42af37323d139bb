"""The outer surfaces: the `research` command line, the LangGraph Server graph, the terminal
approver, the progress display, the run summary, the eval runner and the HTML viewer."""
