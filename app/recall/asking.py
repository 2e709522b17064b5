"""Whether a query asks about the user: "what is my job?", "where does the user live?", "am I
allergic to anything?" — and not "how do I reverse a list?", which asks for a method, not for
anything the user is; and whose words it asks for: the user's, or what the assistant said ("what
did you recommend?", "the recipe you suggested").

A personal memory answers such a question with what the user said or what was learnt about them,
so the relevance gate (evidence.py) takes a memory about the user that passes the floor as
strong enough. The test is by form, in English: a possessive of the first person (singular or
plural: a household's "our fridge") or "the user", or a first-person subject after an auxiliary
("do I", "am I", "did I", "have I", "do we"), unless the
question opens with how / can / could / should, which ask how to do something — but "how many …
did I", "how long have I …" ask about what the user did, and count as about the user.

A reference to the conversation itself ("our last chat", "what we talked about") or a hedge ("I
was wondering if …") says nothing of whose words are wanted: neither makes a question about the
user, and what is left decides.
"""

import re

_POSSESSIVE = re.compile(
    r"\b(?:my|mine|myself|our|ours|ourselves|the\s+user'?s?|users?'s?)\b", re.I
)
_SUBJECT = re.compile(
    r"\b(?:am|do|did|does|have|has|had|was|were|will|would|should|can|could|'m|are)\s+(?:i|we)\b"
    r"|\b(?:i|we)\s+(?:am|are|have|had|was|were|live|work|like|love|own|study)\b",
    re.I,
)
_METHOD = re.compile(r"^\s*(?:how|can|could|should|would)\b", re.I)
# What the asker did or has done ("how many … did I", "how long have I", "the amount I spent",
# "the festivals I attended"): a doing, not a method.
_DONE_BY_ASKER = re.compile(
    r"\b(?:did|have|has|had|was|were)\s+(?:i|we)\b"
    r"|\b(?:i|we)\s+(?:\w+ed|spent|bought|got|went|made|took|saw|met|gave|ate|paid|sold|wrote|"
    r"found|left|kept|lost|won|drove|flew|ran|began|did|had|was|were|sent|brought|built|heard|"
    r"rode|swam|taught|thought|told|said|wore)\b",
    re.I,
)
_NOT_ABOUT_USER = re.compile(
    r"\b(?:our|my)\s+(?:(?:previous|last|earlier|past|recent|other|first)\s+)?"
    r"(?:chats?|conversations?|discussions?|talks?|exchanges?)\b"
    r"|\b(?:we|you and i|i and you)\s+(?:(?:have|had|were|'ve|'d)\s+)?"
    r"(?:talked|talking|discussed|discussing|chatted|chatting|spoke|covered|went over)\b"
    r"|\bi(?:'m| am| was)\s+(?:just\s+)?wondering\b|\bi\s+wonder(?:ed)?\b",
    re.I,
)
# The assistant as the one who said it: "you" with a verb of saying, giving or making ("the song
# you composed"), or "your" with what one says or gives ("your suggestion"), in any tense ("did
# you recommend", "you'd told me").
_SAID_BY_ASSISTANT = re.compile(
    r"\byou(?:'d|'ve| had| have| did)?\s+(?:\w+\s+)?(?:said|say|suggest\w*|recommend\w*|mention\w*|"
    r"told|tell|gave|give|list\w*|provid\w*|explain\w*|wrote|write|shar\w*|propos\w*|"
    r"advis\w*|came up|offer\w*|nam\w*|describ\w*|point\w* out|"
    r"creat\w*|made|compos\w*|draft\w*|generat\w*|put together|outlin\w*|summari[sz]\w*)\b"
    r"|\byour\s+(?:suggestion|recommendation|advice|answer|list|explanation|response|idea|tip)s?\b",
    re.I,
)


def asks_about_user(query: str) -> bool:
    """Whether the query asks about the user rather than for a method or a general fact."""
    query = _NOT_ABOUT_USER.sub(" ", query)
    if _METHOD.match(query) and not (_POSSESSIVE.search(query) or _DONE_BY_ASKER.search(query)):
        return False
    return bool(_POSSESSIVE.search(query) or _SUBJECT.search(query) or _DONE_BY_ASKER.search(query))


def wanted_speaker(query: str) -> str | None:
    """Whose turns answer the query: "assistant" for what the assistant said, "user" for a
    question about the user, None for anything else."""
    if _SAID_BY_ASSISTANT.search(query):
        return "assistant"
    return "user" if asks_about_user(query) else None


# The question asks for the value as it is now: "currently", "so far", "these days", "still".
_NOW = re.compile(
    r"\b(?:current(?:ly)?|now|nowadays|so far|to date|these days|at the moment|at present|"
    r"presently|still|latest|most recent(?:ly)?|any more|anymore)\b",
    re.I,
)


def asks_for_now(query: str) -> bool:
    """Whether the query asks for a value as it stands now ("how many titles are on my list
    now?", "what am I currently working on?"), so the latest of several answers is the one."""
    return bool(_NOW.search(query))
