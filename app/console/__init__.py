"""The memory console: a static browser app at /console that calls the public HTTP API."""
