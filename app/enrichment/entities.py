"""Named entities in a memory's text, without an LLM.

Entities come from four kinds of evidence about a name, strongest first:
1. CUE: context in the text ("met with Sarah", "using Docker", "Redis vs Memcached",
   "job at Farfetch", "project called X", "the `billing-sync` service");
2. SHAPE: the name itself (a "Foundation" or "Inc" suffix, a "Con" or "Marathon" event, a
   well-known tool from KNOWN_TOOLS, a camel-cased or dotted name such as FastAPI or Fly.io);
3. NER: spaCy's label, which the small model often gets wrong in kind (Docker as a person,
   Shopify as a place), so any cue or shape outranks it;
4. WEAK: hints used only when nothing else speaks ("via X", "Pedro and Ana" next to a PERSON).
Each name keeps the category of its strongest evidence, once per text, and evidence about part
of a name ("Sarah" in "Sarah Chen") counts for the whole. Every candidate must pass
`is_valid_entity`: AutoMem's regexes produced mostly word-pair noise (its issue #181), so here a
cue only proposes a name and the filter decides.

Here: the public API, cleaning and the quality filter, gathering the evidence and resolving it.
The pieces: `cues` (Candidate, the strengths and the CUES table), `shapes` (SHAPE evidence and
the known-tool matches), `wordlists` (the vocabularies); the summary is in `summary`.

The labelled set and the scores are in bench/entity_cases.py and
bench/entity_extraction.py.
"""

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from spacy.tokens import Doc, Span

from app.enrichment.cues import CUES, NER, SHAPE, WEAK, Candidate, Cue
from app.enrichment.shapes import shape_category, tool_candidates
from app.enrichment.wordlists import (
    CALENDAR_WORDS,
    CHAT_WORDS,
    DETERMINERS,
    GENERIC_ACRONYMS,
    GENERIC_NOUNS,
    HONORIFICS,
    PRONOUNS,
    STOPWORDS,
    word_set,
)
from app.nlp import load_nlp

ENTITY_CATEGORIES = ("people", "organizations", "places", "tools", "projects", "concepts")

NER_CATEGORIES = {
    "PERSON": "people",
    "ORG": "organizations",
    "GPE": "places",
    "LOC": "places",
    "FAC": "places",
    "PRODUCT": "tools",
    "EVENT": "concepts",
    "WORK_OF_ART": "concepts",
    "LAW": "concepts",
    "LANGUAGE": "concepts",
    "NORP": "concepts",
}

MAX_WORDS = 6
MAX_CHARS = 60


@dataclass(frozen=True)
class Entity:
    name: str
    category: str
    slug: str


def slugify(name: str) -> str:
    """Lowercase ASCII words joined by hyphens: "São Paulo" → "sao-paulo", "C++" → "c-plus-plus"."""
    spelled = name.replace("+", " plus ").replace("#", " sharp ")
    ascii_name = unicodedata.normalize("NFKD", spelled).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")


# --- cleaning and the quality filter -------------------------------------------------------

_EDGE_JUNK = re.compile(r"^[\s\"'“”‘’`(\[{<.,;:!?*_-]+|[\s\"'“”‘’`)\]}>.,;:!?*_-]+$")
_POSSESSIVE = re.compile(r"['’]s?$")
_LEADING_DETERMINER = re.compile(rf"^(?:{DETERMINERS.replace(' ', '|')})\s+", re.IGNORECASE)
_LEADING_CHAT = re.compile(rf"^(?:{'|'.join(CHAT_WORDS)})\b[,.!]*\s+(?=\S)", re.IGNORECASE)
_LEADING_HONORIFIC = re.compile(rf"^(?:{'|'.join(HONORIFICS)})\.?\s+")
_LEADING_PROJECT = re.compile(r"^project\s+", re.IGNORECASE)
_TRAILING_VERSION = re.compile(r"\s+v?\d+(?:\.\d+)+$|\s+v\d+$")
_NUMBER_OR_DATE = re.compile(r"^[\d\s.,:/%$€£+-]+(?:st|nd|rd|th|am|pm|s|k|m)?$", re.IGNORECASE)
_SHORT_CODE = re.compile(r"^[A-Z]{1,2}\d{1,2}$")  # Q3, H1, P0, V2
_CODE_CHARS = re.compile(r"[()\[\]{}<>=|\\;]")
_NOT_A_PERSON = re.compile(r"\d|[a-z]\.\w")  # R2D2, x.Bar (but J.K. Rowling)


def clean_name(name: str) -> str:
    """Drops what is not part of a name: quotes, "the", titles, "Project", "'s", a version."""
    previous = None
    while name != previous:
        previous = name
        name = _EDGE_JUNK.sub("", name)
        name = _POSSESSIVE.sub("", name)
        name = _LEADING_DETERMINER.sub("", name)
        name = _LEADING_CHAT.sub("", name)
        name = _LEADING_HONORIFIC.sub("", name)
        name = _LEADING_PROJECT.sub("", name)
        name = _TRAILING_VERSION.sub("", name)
    return " ".join(name.split())


# Quoted titles keep their article ("The Hobbit"); "the" is stripped from every other name.
_BAD_FIRST_WORDS = CHAT_WORDS | PRONOUNS | (STOPWORDS - {"the", "a", "an"})
_BAD_LAST_WORDS = PRONOUNS | STOPWORDS  # "JOHN AT" from "MEETING WITH JOHN AT 3PM"


def is_valid_entity(name: str, category: str) -> bool:
    """Whether a cleaned name is worth remembering as an entity of `category`."""
    if category not in ENTITY_CATEGORIES or not _plausible_shape(name):
        return False
    words = [_plain_word(word) for word in name.split()]
    if words[0] in _BAD_FIRST_WORDS or words[-1] in _BAD_LAST_WORDS:
        return False
    if words[-1].removesuffix("s") in CALENDAR_WORDS:  # "Tues", "Last Fri", "Wednesdays"
        return False
    if len(words) == 1 and _is_common_word(words[0]):
        return False
    return category != "people" or not _NOT_A_PERSON.search(name)


def _plain_word(word: str) -> str:
    """Lowercase, straight apostrophes, and no stretched letters ("Awww" → "aww")."""
    return re.sub(r"(\w)\1{2,}", r"\1\1", word.lower().replace("’", "'"))


def _plausible_shape(name: str) -> bool:
    if len(name) < 2 or len(name) > MAX_CHARS or len(name.split()) > MAX_WORDS:
        return False
    alnum = sum(ch.isalnum() for ch in name)
    if alnum < 2 or alnum < len(name.replace(" ", "")) / 2 or _CODE_CHARS.search(name):
        return False
    return not (_NUMBER_OR_DATE.match(name) or _SHORT_CODE.match(name))


def _is_common_word(word: str) -> bool:
    common = (PRONOUNS, STOPWORDS, CHAT_WORDS, GENERIC_NOUNS, GENERIC_ACRONYMS)
    return any(word in words for words in common)


# --- evidence --------------------------------------------------------------------------------


def _cue_candidates(doc: Doc) -> Iterator[Candidate]:
    text = doc.text  # rebuilt from the tokens on every access
    for cue in CUES:
        for match in cue.pattern.finditer(text):
            for group, value in match.groupdict().items():
                if value is None:
                    continue
                names = _split_names(value) if group == "names" else [value]
                for name in names:
                    start = match.start(group) + value.find(name)
                    if _cue_applies(cue, doc, name, start):
                        # A quoted title keeps its article: "The Pragmatic Programmer".
                        cleaned = name.strip() if group == "quoted" else clean_name(name)
                        end = start + len(name)
                        yield Candidate(cleaned, cue.category, cue.strength, start, end)


def _split_names(names: str) -> list[str]:
    return re.split(r"\s*,\s*|,?\s+(?:and|&)\s+", names)


def _cue_applies(cue: Cue, doc: Doc, name: str, start: int) -> bool:
    # "tried Sarah's lasagna" is about Sarah, not a tool called Sarah.
    if cue.category != "people" and re.search(r"['’]s$", name):
        return False
    if cue.propn_only:
        span = doc.char_span(start, start + len(name))
        return span is not None and span[0].pos_ == "PROPN"
    return True


def _ner_candidates(doc: Doc) -> Iterator[Candidate]:
    for ent in doc.ents:
        span = _trimmed(ent)
        category = _ner_category(span, ent.label_)
        if category is None or not _looks_like_a_name(span, ent.label_):
            continue
        name, start, end = clean_name(span.text), span.start_char, span.end_char
        yield Candidate(name, category, NER, start, end)
        if name and (implied := shape_category(name)):
            yield Candidate(name, implied, SHAPE, start, end)


_JOINERS = frozenset(("to", "from", "and", "or", "vs", "versus"))


def _looks_like_a_name(span: Span, label: str) -> bool:
    """Names are capitalised proper nouns; NER also tags "Glad", "kinda" and "Pottery"."""
    if not any(ch.isupper() for ch in span.text):
        return False
    if any(token.lower_ in _JOINERS for token in span[1:-1]):
        return False  # two names run together: "MySQL to PostgreSQL", "Solr to Typesense"
    return label in ("NORP", "LANGUAGE") or any(token.pos_ == "PROPN" for token in span)


def _conjunct_candidates(doc: Doc) -> Iterator[Candidate]:
    """An untagged name joined by "and" to a tagged one is likely the same kind: "Pedro and Ana"."""
    for ent in doc.ents:
        category = _ner_category(ent, ent.label_)
        if category is None or not _looks_like_a_name(ent, ent.label_):
            continue
        for joiner, step in ((ent.end, 1), (ent.start - 1, -1)):
            if not (0 <= joiner < len(doc) and doc[joiner].lower_ in ("and", "&")):
                continue
            if span := _untagged_name(doc, joiner + step, step):
                name = clean_name(span.text)
                yield Candidate(name, category, WEAK, span.start_char, span.end_char)


def _untagged_name(doc: Doc, i: int, step: int) -> Span | None:
    """The run of capitalised, untagged proper nouns from token `i` going in direction `step`."""
    j = i
    while 0 <= j < len(doc) and doc[j].pos_ == "PROPN" and doc[j].is_title and not doc[j].ent_type:
        j += step
    if j == i:
        return None
    return doc[i:j] if step > 0 else doc[j + 1 : i + 1]


def _ner_category(span: Span, label: str) -> str | None:
    """The label's category, corrected where the words around the span contradict it."""
    doc = span.doc
    before = doc[span.start - 1] if span.start > 0 else None
    if label == "PERSON" and before is not None and before.lower_ == "the" and _is_head(span):
        return "places"  # "the Louvre was packed": people don't take an article
    if label in ("GPE", "LOC") and _indefinite_before(span):
        return "tools"  # "a new Kindle": places don't take "a"
    if label == "NORP":
        return _norp_category(span, before.lower_ if before is not None else "")
    return NER_CATEGORIES.get(label)


def _is_head(span: Span) -> bool:
    """Not a modifier of a following noun ("the Lex Fridman podcast")."""
    return span.end == len(span.doc) or span.doc[span.end].pos_ not in ("NOUN", "PROPN")


def _indefinite_before(span: Span) -> bool:
    i = span.start - 1
    while i >= 0 and span.doc[i].pos_ == "ADJ":
        i -= 1
    return i >= 0 and span.doc[i].lower_ in ("a", "an")


def _norp_category(span: Span, before: str) -> str | None:
    if not span.text[:1].isupper():
        return None  # nationalities are capitalised; "ryokan" is not one
    if before in ("at", "for", "from", "with"):
        return "organizations"  # "everyone at Atlassian"
    after = span.doc[span.end] if span.end < len(span.doc) else None
    if after is not None and after.pos_ in ("NOUN", "PROPN"):
        return "concepts"  # adjectival use: "a Thai place"
    return "concepts" if span.text.endswith("s") else None


_EDGE_POS = word_set("VERB AUX ADP DET PRON INTJ CCONJ SCONJ PART PUNCT ADV SPACE")


def _trimmed(ent: Span) -> Span:
    """The span without edge words NER sometimes swallows: "Going to PyCon" → "PyCon"."""
    start, end = ent.start, ent.end
    while end - start > 1 and ent.doc[start].pos_ in _EDGE_POS:
        start += 1
    while end - start > 1 and ent.doc[end - 1].pos_ in _EDGE_POS:
        end -= 1
    return ent.doc[start:end]


# --- resolution ------------------------------------------------------------------------------


def _resolve(candidates: list[Candidate]) -> list[Entity]:
    """One entity per name, in order of first mention, with its strongest evidence's category."""
    valid = [c for c in candidates if is_valid_entity(c.name, c.category) and slugify(c.name)]
    best: dict[str, Candidate] = {}
    for candidate in sorted(_widened(valid), key=lambda c: c.start):
        slug = slugify(candidate.name)
        current = best.get(slug)
        if current is None:
            best[slug] = candidate
        elif _outranks(candidate, current):
            best[slug] = replace(candidate, start=current.start)
    ordered = sorted(best.items(), key=lambda item: item[1].start)
    return [Entity(c.name, c.category, slug) for slug, c in ordered]


def _widened(candidates: list[Candidate]) -> list[Candidate]:
    """Context about part of a longer name counts for the longer name ("Sarah" in "Sarah Chen"),
    but a word's shape does not: "Swift" is a tool, "Taylor Swift" is not."""
    widened = []
    for candidate in candidates:
        container = _container(candidate, candidates)
        if container is candidate or candidate.strength != SHAPE:
            widened.append(replace(candidate, name=container.name))
    return widened


def _container(candidate: Candidate, candidates: list[Candidate]) -> Candidate:
    containers = [
        other
        for other in candidates
        if other.start <= candidate.start
        and candidate.end <= other.end
        and other.end - other.start > candidate.end - candidate.start
    ]
    return max(containers, key=lambda c: c.end - c.start, default=candidate)


_TIE_ORDER = {"people": 0, "tools": 1}  # then every other category, first mention first


def _outranks(new: Candidate, old: Candidate) -> bool:
    if new.strength != old.strength:
        return new.strength > old.strength
    # A name that is both a person and a tool is a person (AutoMem's rule, as "with X" is
    # ambiguous); a known tool name beats NER's usual guesses of place or organisation.
    return _TIE_ORDER.get(new.category, 2) < _TIE_ORDER.get(old.category, 2)


def extract_entities(doc_or_text: Doc | str) -> list[Entity]:
    """The entities a text mentions, once each, in order of first mention."""
    doc = doc_or_text if isinstance(doc_or_text, Doc) else load_nlp()(doc_or_text)
    candidates = [
        *_cue_candidates(doc),
        *_ner_candidates(doc),
        *tool_candidates(doc),
        *_conjunct_candidates(doc),
    ]
    return _resolve(candidates)


def extract_many(texts: Sequence[str], batch_size: int = 64) -> list[list[Entity]]:
    """`extract_entities` for many texts, batched through spaCy (CPU-bound: call it through
    app.nlp.run_nlp)."""
    nlp = load_nlp()
    return [extract_entities(doc) for doc in nlp.pipe(texts, batch_size=batch_size)]
