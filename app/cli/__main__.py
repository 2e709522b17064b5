"""`python -m app.cli`: the `engram` command without installing the package."""

from app.cli.root import main

main()
