"""Research harness: five least-privilege subagents exchanging schema-validated files."""

from harness.contract.version import __version__

__all__ = ["__version__"]
