"""Research harness: five least-privilege subagents exchanging schema-validated files."""

__version__ = "0.1.0"
