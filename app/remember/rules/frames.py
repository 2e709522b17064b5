"""Reading a sentence's dependency parse: the speaker's predicates and their arguments.

A predicate is a verb (or a copula) whose subject is the speaker: "I", "we", "Sophie and I", or
nobody at all at the start of a chat fragment ("finally sold the Civic!!"). The parse gives its
lemma with any particle ("give up", "pass away"), its negation, whether it is marked as ended
("any more", "no longer"), its objects and its prepositional objects; `frame_facts` hands it to
the reader for its lemma (app/remember/rules/readers.py). Arguments are read as phrases of the parse
(a noun with its determiners, modifiers, compounds and "of" phrases), not as the next few words.
"""

import re
from collections.abc import Iterator
from dataclasses import dataclass

from spacy.tokens import Span, Token

from app import lexicon as lex
from app.remember.facts import USER, Turn
from app.remember.rules.clauses import Clause, prepare

ENDED_MARKERS = re.compile(r"\b(?:any\s*more|no\s+longer|not\s+anymore)\b", re.I)
SUBJECT_DEPS = ("nsubj", "nsubjpass")
# Children that are not part of a noun phrase's own words.
CLAUSE_DEPS = frozenset(
    {"relcl", "acl", "advcl", "punct", "cc", "conj", "appos", "ccomp", "parataxis", "mark"}
)
REST_DEPS = frozenset(
    {
        "dobj",
        "prep",
        "advmod",
        "npadvmod",
        "xcomp",
        "prt",
        "acomp",
        "attr",
        "dative",
        "oprd",
        "pobj",
        "agent",
        "dep",
    }
)
FRAGMENT_TAGS = frozenset({"VBD", "VBN", "VBG", "VBP", "VBZ"})
LEAD_DEPS = frozenset({"advmod", "intj", "cc", "punct", "discourse"})
MAX_PHRASE_WORDS = 10
MAX_REST_WORDS = 14
# Nouns of an amount that lead to what is counted: "a bit of German", "a couple of cats".
QUANTITY_NOUNS = frozenset({"bit", "little", "couple", "lot", "pair"})


@dataclass
class Predicate:
    """One of the speaker's predicates in a sentence."""

    verb: Token
    lemma: str  # with its particle: "give up", "pass away", "break up"
    negated: bool
    ended: bool
    partner: Token | None  # the co-subject: "Sophie and I" → Sophie
    team: bool  # the subject is "we"
    clause: Clause
    lower_case: bool

    def children(self, *deps: str) -> list[Token]:
        return [c for c in self.verb.children if c.dep_ in deps]

    def objects(self) -> list[Token]:
        """Direct objects with their conjuncts ("Polish, English and a bit of German")."""
        found = []
        for obj in self.children("dobj", "attr", "oprd"):
            found += [_through_of(t) for t in (obj, *obj.conjuncts)]
        return found

    def preps(self, *words: str) -> list[Token]:
        """Objects of the verb's prepositions `words` (with conjuncts)."""
        return pobjs(self.verb, *words)


def pobjs(head: Token, *words: str) -> list[Token]:
    found = []
    for prep in head.children:
        if prep.dep_ == "prep" and prep.lower_ in words:
            for obj in prep.children:
                if obj.dep_ == "pobj":
                    found += [obj, *obj.conjuncts]
    return found


def _through_of(token: Token) -> Token:
    """ "a bit of German" → German; "a couple of cats" → cats."""
    if token.lemma_.lower() in QUANTITY_NOUNS:
        inner = pobjs(token, "of")
        return inner[0] if inner else token
    return token


def phrase(token: Token, *, preps: tuple[str, ...] = ("of",)) -> str:
    """The noun phrase headed by `token`: modifiers, compounds and its `preps` phrases."""
    words = _phrase_tokens(token, preps)
    if len(words) > MAX_PHRASE_WORDS:
        return token.text
    return joined(words)


def _phrase_tokens(token: Token, preps: tuple[str, ...]) -> list[Token]:
    words = [token]
    for child in token.children:
        if child.dep_ in CLAUSE_DEPS or (child.dep_ == "prep" and child.lower_ not in preps):
            continue
        if child.dep_ == "case" or child.dep_ != "prep" or child.lower_ in preps:
            words += [t for t in child.subtree if t.dep_ != "punct"]
    return words


HEAD_SKIPPED = frozenset({"det", "poss", "nummod", "punct", "advmod", "case", "predet"})


def head_words(token: Token) -> str:
    """The head noun with its modifiers, without determiners or counts ("primary school
    teacher", "3D printer", "Honda Civic")."""
    words = [t for t in token.doc[token.left_edge.i : token.i] if t.dep_ not in HEAD_SKIPPED]
    return " ".join([*(t.text for t in words), token.text])


def rest_text(verb: Token) -> str:
    """What follows the verb in its own clause: objects, particles, adverbs, prepositions."""
    words = [t for child in verb.rights if child.dep_ in REST_DEPS for t in child.subtree]
    words = [t for t in words if t.dep_ != "punct" and t.i > verb.i]
    return joined(sorted(words, key=lambda t: t.i)[:MAX_REST_WORDS])


def joined(words: list[Token]) -> str:
    """Tokens as text; where a comma between two of them was dropped, it comes back."""
    kept = {t.i for t in words}
    ordered = sorted(words, key=lambda t: t.i)
    return "".join(t.text + _after(t, kept) for t in ordered).strip(" ,")


def _after(token: Token, kept: set[int]) -> str:
    if token.i + 1 in kept or token.i + 1 >= len(token.doc):
        return token.whitespace_
    dropped = token.doc[token.i + 1]
    return ", " if dropped.text == "," else (token.whitespace_ or " ")


def is_name(token: Token, lower_case: bool) -> bool:
    """A proper name: capitalised in edited text, or any noun in a turn written in lower case."""
    if token.ent_type_ in ("DATE", "TIME", "CARDINAL", "ORDINAL", "MONEY", "PERCENT"):
        return False
    if any(c.dep_ == "det" and c.lower_ in lex.INDEFINITE_ARTICLES for c in token.children):
        return False
    if lower_case:
        return token.pos_ in ("PROPN", "NOUN") and token.is_alpha
    return token.text[:1].isupper() and token.is_alpha and token.pos_ in ("PROPN", "NOUN", "ADJ")


def name_text(token: Token, lower_case: bool) -> str:
    text = phrase(token, preps=("of",))
    text = re.sub(r"^(?:the|a|an|my|our)\s+", "", text, flags=re.I)
    return text.title() if lower_case else text


def _speaker(verb: Token) -> tuple[bool, Token | None, bool]:
    """(the speaker is the subject, the co-subject, the subject is "we")."""
    subjects = [c for c in verb.children if c.dep_ in SUBJECT_DEPS]
    if not subjects:
        if verb.dep_ in ("conj", "xcomp", "advcl") and verb.head is not verb:
            return _speaker(verb.head)
        return _starts_fragment(verb), None, False
    subject = subjects[0]
    if subject.lower_ in lex.SPEAKER_PRONOUNS:
        others = [c for c in subject.conjuncts if c.lower_ not in lex.SPEAKER_PRONOUNS]
        return True, (others[0] if others else None), subject.lower_ == "we"
    # "my wife and I", or "my wife Laura and I" (the parser hangs "I" on the name)
    if any(t.lower_ == "i" and t.dep_ == "conj" for t in subject.subtree):
        return True, subject, False
    return False, None, False


def _starts_fragment(verb: Token) -> bool:
    """A subject-less verb opening a chat fragment: "gave up football", "flying to Tokyo",
    "can also play piano" (a bare verb only after "can": alone it is a request, "play Jazz")."""
    can = any(c.dep_ == "aux" and c.lower_ == "can" for c in verb.children)
    tagged = verb.tag_ in FRAGMENT_TAGS or (verb.tag_ == "VB" and can)
    if not tagged or verb.dep_ not in ("ROOT", "conj"):
        return False
    before = [t for t in verb.sent if t.i < verb.i]
    return all(t.dep_ in LEAD_DEPS or t.dep_ in ("aux", "neg", "prt") for t in before)


def _lemma(verb: Token) -> str:
    particles = [c.lower_ for c in verb.children if c.dep_ == "prt"]
    away = [c.lower_ for c in verb.children if c.dep_ == "advmod" and c.lower_ == "away"]
    extra = (particles or away)[:1]
    return " ".join([verb.lemma_.lower(), *extra])


def predicates(sentence: Span, turn: Turn, lower_case: bool) -> Iterator[Predicate]:
    """The speaker's predicates in a sentence, each with its clause prepared (date resolved)."""
    for verb in sentence:
        if verb.pos_ not in ("VERB", "AUX") or verb.dep_ in ("aux", "auxpass", "xcomp"):
            continue  # an xcomp ("plan to learn", "used to live") is read by its head
        speaker, partner, team = _speaker(verb)
        if not speaker:
            continue
        negated = any(c.dep_ == "neg" for c in verb.children) or any(
            c.dep_ == "neg" for c in verb.head.children if verb.dep_ == "xcomp"
        )
        span = verb.doc[verb.left_edge.i : verb.right_edge.i + 1]
        clause = prepare(span, USER, turn)
        ended = bool(ENDED_MARKERS.search(span.text))
        yield Predicate(verb, _lemma(verb), negated, ended, partner, team, clause, lower_case)


def clause_of(span: Span, turn: Turn) -> Clause:
    return prepare(span, USER, turn)
