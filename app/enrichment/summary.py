"""A one-line summary of a memory: its first sentence, cut to length."""

import re

from app.lexicon import word_set

_BLOCK_BREAK = re.compile(r"\n\s*\n|\n(?=\s*(?:[-*•#>]|\d+[.)])\s)")
_MARKUP_PREFIX = re.compile(r"^(?:[-*•#>]+|\d+[.)])\s+")
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s|$)")
_ABBREVIATIONS = word_set("dr mr mrs ms mx st prof jr sr vs etc e.g i.e approx no fig")


def summarize(content: str, max_chars: int = 240) -> str:
    """The first sentence, cut on a word boundary with "…" if longer than `max_chars`."""
    sentence = _first_sentence(content)
    if len(sentence) <= max_chars:
        return sentence
    cut = sentence[: max_chars - 1]
    if not sentence[max_chars - 1].isspace() and " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:-–—") + "…"


def _first_sentence(content: str) -> str:
    block = _BLOCK_BREAK.split(content.strip(), maxsplit=1)[0]
    text = _MARKUP_PREFIX.sub("", " ".join(block.split()))
    for end in _SENTENCE_END.finditer(text):
        if not _ends_abbreviation(text, end):
            return text[: end.end()]
    return text


def _ends_abbreviation(text: str, end: re.Match[str]) -> bool:
    if end.group() != ".":
        return False
    before = text[: end.start()].rsplit(maxsplit=1)
    word = before[-1] if before else ""
    return word.lower() in _ABBREVIATIONS or (len(word) == 1 and word.isupper())
