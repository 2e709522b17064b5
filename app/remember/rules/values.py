"""A fact's value from the words after its pattern: cut, checked and put in third person.

Pure string functions: a value ends where its phrase ends, and is rejected when it is vague,
negated or too long.
"""

import re

from app.lexicon import NOT_NAMES, word_set

# A value ends at punctuation or where a subordinate clause begins.
VALUE_END = re.compile(
    r"\s*[,;!?()\[\]]|:(?:\s|$)|\s+[-–—]\s+|\s+(?:because|since|but|when|whenever|while|although|though|"
    r"which|who|whereas|unless|until|except|and\s+(?:I|my|it|he|she|they|we|you|that|this|"
    r"there))\b",
    re.I,
)
TRAILING_FILLER = re.compile(
    r"(?:\s+(?:a lot|so much|very much|too|as well|now|right now|these days|nowadays|currently|"
    r"lol|haha|tbh|honestly|actually|though|anyway|really|btw|fyi|by the way|myself))+$",
    re.I,
)
# Words that make a value depend on context we do not have, or negate it.
UNRESOLVED_WORDS = word_set(
    "it its this that these those he him his she her hers they them their theirs you your yours "
    "we us our ours there here someone somebody something anything everything nothing none "
    "nobody not no never i i'm i've i'd i'll myself"
)
OPENING_WORDS_REJECTED = word_set("how what when where why who whom which if whether both all")
CLOSING_WORDS_REJECTED = word_set("to a an the of for with and or but at in on by from my about")
MAX_VALUE_WORDS = 8
MAX_REST_WORDS = 12


def clean_value(raw: str, max_words: int = MAX_VALUE_WORDS) -> str | None:
    """The value cut at the end of its phrase, or None when it is vague, negated or too long."""
    value = VALUE_END.split(raw, maxsplit=1)[0]
    value = TRAILING_FILLER.sub("", value).strip(" .!~*'\"")
    words = value.lower().split()
    if not words or len(words) > max_words or words[0] in OPENING_WORDS_REJECTED:
        return None
    if words[-1] in CLOSING_WORDS_REJECTED:
        return None
    if UNRESOLVED_WORDS & {w.strip(".,!'\"") for w in words} or "n't" in value:
        return None
    return value


def third_person(text: str, name: str) -> str:
    """`my` → `User's`, `me`/`myself` → `User` (for the rest of a clause after its verb)."""
    text = re.sub(r"\b(?:my|mine)\b", f"{name}'s", text, flags=re.I)
    return re.sub(r"\b(?:me|myself)\b", name, text, flags=re.I)


def third_person_verb(verb: str) -> str:
    """Verb agreement for a third-person subject: live → lives, go → goes, try → tries."""
    lowered = verb.lower()
    irregular = {"am": "is", "'m": "is", "have": "has", "'ve": "has", "do": "does", "go": "goes"}
    if lowered in irregular:
        return irregular[lowered]
    if " " in lowered or lowered.endswith("n't"):
        return verb
    if re.search(r"[^aeiou]y$", lowered):
        return verb[:-1] + "ies"
    if re.search(r"(?:s|sh|ch|x|z|o)$", lowered):
        return verb + "es"
    return verb + "s"


def slot_key(value: str) -> str:
    """The comparable form of a value: lower case, no article, single spaces."""
    key = re.sub(r"^(?:the|a|an|some)\s+", "", value.strip().lower())
    return re.sub(r"\s+", " ", key).strip(" .!")


NAME_WORD = re.compile(r"[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?")
PLACE_CONNECTORS = word_set("of de del la le upon am on the and")


def person_name(raw: str) -> str | None:
    """One to three capitalised words that are not a common adjective."""
    words = (clean_value(raw, max_words=3) or "").split()
    if not words or not all(NAME_WORD.fullmatch(w) for w in words):
        return None
    return None if words[0].lower() in NOT_NAMES else " ".join(words)


def place_name(raw: str) -> str | None:
    """The leading capitalised run of a value ("Prague with my wife" → "Prague")."""
    words = (clean_value(raw, max_words=12) or "").split()
    kept = words[:1] if words and words[0].lower() == "the" else []
    for word in words[len(kept) :]:
        if not (word[:1].isupper() or (kept and word.lower() in PLACE_CONNECTORS)):
            break
        kept.append(word)
    while kept and kept[-1].lower() in PLACE_CONNECTORS:
        kept.pop()
    has_name = any(w[:1].isupper() for w in kept)
    return " ".join(kept) if has_name and len(kept) <= 5 else None
