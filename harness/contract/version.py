"""The harness's version, recorded in every run.json (one definition; `harness.__version__` re-exports it)."""

__version__ = "0.1.0"
