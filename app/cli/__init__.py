"""The `engram` command: operate a running Engram server over HTTP with the admin key.

Exit codes scripts can rely on (also in `engram --help`):

0 success; 1 the operation failed (the server refused it, a job died, a check did not hold);
2 usage error (bad options or arguments); 3 the server could not be reached; 4 the key was
missing or refused (401/403).
"""

from app.cli.root import cli, main

__all__ = ["cli", "main"]
