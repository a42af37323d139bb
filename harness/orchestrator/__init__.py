"""The parent: a LangGraph graph that delegates to the five roles and routes on the Reviewer's defects."""
