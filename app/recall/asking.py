"""Whether a query asks about the user: "what is my job?", "where does the user live?", "am I
allergic to anything?" — and not "how do I reverse a list?", which asks for a method, not for
anything the user is.

A personal memory answers such a question with what the user said or what was learnt about them,
so the relevance gate (evidence.py) takes a memory about the user that passes the floor as
strong enough. The test is by form, in English: a possessive of the first person or "the user",
or a first-person subject after an auxiliary ("do I", "am I", "did I", "have I"), unless the
question opens with how / can / could / should, which ask how to do something.
"""

import re

_POSSESSIVE = re.compile(r"\b(?:my|mine|myself|the\s+user'?s?|users?'s?)\b", re.I)
_SUBJECT = re.compile(
    r"\b(?:am|do|did|does|have|has|had|was|were|will|would|should|can|could|'m)\s+i\b|\bi\s+(?:am|have|had|was|live|work|like|love|own|study)\b",
    re.I,
)
_METHOD = re.compile(r"^\s*(?:how|can|could|should|would)\b", re.I)


def asks_about_user(query: str) -> bool:
    """Whether the query asks about the user rather than for a method or a general fact."""
    if _METHOD.match(query) and not _POSSESSIVE.search(query):
        return False
    return bool(_POSSESSIVE.search(query) or _SUBJECT.search(query))
