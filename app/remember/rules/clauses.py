"""Sentences and clauses of a turn, and lookups in a clause's parse.

Which sentences are statements (not questions, hypotheticals, hedges or reported speech), where
a sentence breaks into first-person clauses, and how a clause is prepared for the patterns: its
date resolved and removed, lead-ins, vocatives and fillers stripped.
"""

import re
from collections.abc import Iterator
from dataclasses import dataclass

from spacy.tokens import Span, Token

from app.remember.facts import USER, Turn
from app.remember.rules.dates import When, find_date
from app.remember.rules.values import TRAILING_FILLER

FIRST_PERSON = re.compile(r"\b(?:I|i|my|My|MY)\b")
# "think", "guess", "wonder", "suppose" hedge what the speaker says ("I think I'm allergic…"),
# not a sentence that merely holds them ("…, trying not to think about it").
HYPOTHETICAL_OR_HEDGED = re.compile(
    r"\b(?i:if|unless|would|wouldn't|could|couldn't|should|might|maybe|perhaps|wish|"
    r"imagine|pretend|hypothetically|someday|probably|possibly|whether|"
    r"not sure|kind of|kinda|sort of)\b|\bmay\b|(?i:'d)\b"
    r"|\b(?i:I|we)\s+(?i:(?:don't|do\s+not|just|kind\s+of|sort\s+of)\s+)?"
    r"(?i:think|guess|wonder|suppose)\b|\b(?i:think|guess)\s+(?i:so|not)\b"
)
REPORTED = re.compile(
    r"\b(?:said|says|say|told|tells|tell|asked|asks|according to|claim\w*)\b", re.I
)
QUOTES = re.compile(r"[\"“”«»]")
# Clauses end at commas, semicolons and dashes, and where "and/but/so…" introduces "I" or "my".
CLAUSE_BREAK = re.compile(
    r"\s*\n\s*|\s*[,;:](?:\s+|$)|\s+[-–—]+\s+"
    r"|\s+(?P<conj>and|but|so|because|plus)\s+(?=(?:I|i|my|My)\b)"
)
# A clause cut at a comma after one of these is unfinished ("creating a safe, inviting place").
DANGLING_TAGS = frozenset({"JJ", "DT", "IN", "CC", "PRP$"})
LEAD_IN = re.compile(
    r"^(?:(?:oh|ah|well|yeah|yes|yep|yup|no|nah|so|and|but|also|actually|honestly|anyway|anyways|"
    r"btw|by the way|fun fact|ok|okay|haha|hah|lol|wow|hey|hi|hello|sure|right|true|great|cool|"
    r"nice|awesome|thanks|thank you|um|uh|hmm|now|plus|to be honest|tbh|in fact|indeed|"
    r"personally|just so you know|guess what)\b[\s,!.:;-]*)+",
    re.I,
)
# Emoji and other symbols around a clause (quotation marks stay: a quote is not a statement).
EDGE_SYMBOLS = re.compile(r"^[^\w\"“”«»]+|[^\w\"“”«»)]+$")
VOCATIVE = re.compile(r"^[A-Z][a-z]+,\s+(?=(?:I|my)\b)")


@dataclass(frozen=True)
class Clause:
    """One clause of a sentence, prepared for the patterns: date removed, lead-in stripped."""

    text: str
    span: Span  # the clause in the parsed turn (for tags and entities)
    when: When | None
    subject: str
    turn: Turn

    @property
    def name(self) -> str:
        return "User" if self.subject == USER else "Assistant"


# Asides that look conditional but state nothing hypothetical ("I'm a Java dev, if that helps").
ASIDES = re.compile(
    r",?\s*\bif\s+(?:that|it|this)\s+(?:matters|helps|makes\s+sense)\b|\bif\s+you\s+"
    r"(?:must\s+know|need\s+to\s+know|(?:are|'re)\s+wondering)\b",
    re.I,
)
# A short request tagged on after a statement: "…next Friday, remind me?".
TAG_QUESTION = re.compile(r"[,;–—-]\s*(?P<tail>[^,;–—?-]{1,30})\?\s*$")


def is_statement(sentence: str) -> bool:
    """False for questions, hypotheticals, hedges and reported speech."""
    sentence = ASIDES.sub("", sentence)
    tag = TAG_QUESTION.search(sentence)
    if tag and len(tag["tail"].split()) <= 3 and not re.search(r"\bI\b", tag["tail"]):
        sentence = sentence[: tag.start()]
    return not (
        "?" in sentence or HYPOTHETICAL_OR_HEDGED.search(sentence) or REPORTED.search(sentence)
    )


def _span(sentence: Span, start: int, end: int) -> Span | None:
    offset = sentence.start_char
    return sentence.doc.char_span(offset + start, offset + end, alignment_mode="expand")


def _pieces(sentence: Span) -> Iterator[tuple[int, int, bool]]:
    """(start, end, complete) of each piece between clause breaks."""
    text, start = sentence.text, 0
    for brk in CLAUSE_BREAK.finditer(text):
        piece = _span(sentence, start, brk.start())
        if brk["conj"] and piece is not None and not any(t.pos_ in ("VERB", "AUX") for t in piece):
            continue  # "My mom and I made dinner": a compound subject, not two clauses
        last = piece[-1] if piece else None
        # The tagger takes some names for adjectives ("I'm Ava, your assistant"): lower case only.
        complete = not (last and "," in brk[0] and last.tag_ in DANGLING_TAGS and last.is_lower)
        yield start, brk.start(), complete
        start = brk.end()
    yield start, len(text), True


def clause_spans(sentence: Span) -> Iterator[Span]:
    """The first-person clauses of a sentence, outside quotation marks.

    Pieces before the first one (a lead-in, a vocative, a date: "Last Friday, I …") stay with
    it; pieces after a clause without "I" or "my" are its tail and are dropped.
    """
    text, seen_clause, prefix_start = sentence.text, False, None
    for start, end, complete in _pieces(sentence):
        if not FIRST_PERSON.search(text[start:end]):
            if not seen_clause and prefix_start is None:
                prefix_start = start
            continue
        begin = start if seen_clause or prefix_start is None else prefix_start
        seen_clause = True
        inside_quotes = len(QUOTES.findall(text[:begin])) % 2 == 1
        span = _span(sentence, begin, end)
        if complete and not inside_quotes and span is not None:
            yield span


def prepare(span: Span, subject: str, turn: Turn) -> Clause:
    """Removes the date expression and any lead-in ("Oh, well, …") from a clause."""
    text = span.text
    # Without a past-tense verb, an ambiguous date ("on Monday", "March 3") is the next one.
    future = not any(token.tag_ == "VBD" for token in span)
    when = find_date(text, turn.timestamp, future=future)
    if when:
        text = f"{text[: when.start]} {text[when.end :]}"
    text = re.sub(r"\s+", " ", text).strip(" ,;:-–—")
    text = EDGE_SYMBOLS.sub("", text)
    text = VOCATIVE.sub("", LEAD_IN.sub("", text))
    text = re.sub(r"\s+([,.!;:])", r"\1", text).rstrip(" .!;:,-–—~*)(")
    text = TRAILING_FILLER.sub("", text)
    return Clause(text, span, when, subject, turn)


# --- The clause's parse -----------------------------------------------------------------------


def token_for(span: Span, word: str) -> Token | None:
    """The first token of the clause spelled `word`."""
    return next((t for t in span if t.lower_ == word.lower()), None)


def tagged(span: Span, word: str, *tags: str) -> bool:
    token = token_for(span, word)
    return token is not None and token.tag_ in tags


def is_person_entity(span: Span, name: str) -> bool:
    return any(ent.label_ == "PERSON" and name in ent.text for ent in span.doc.ents)
