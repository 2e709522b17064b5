"""Conversations as /remember keeps them, read back: a session's messages (the Context Archive),
its record and its MemoryLess switch (router.py), and the caller's profile, the current facts
and the newest reflection in one call (profile_router.py). /remember writes them (app.remember);
this domain only reads them and flips a session's switch. Their Cypher is app.storage.graph's
(sessions.py, transcripts.py, reflections.py)."""
