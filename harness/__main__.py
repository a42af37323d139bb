"""`python -m harness` is the `research` command line."""

from harness.surfaces.cli import main

main()
