"""Attribute evidence: a question about one of the user's attributes finds the facts that fill it.

A fact written by /remember carries the slot it fills (`residence`, `job_title`, `pet:pickle`…;
the taxonomy is app/remember/attributes.py), on the memory node and in its vector payload. A
question such as "what does the user do for work" shares no word with "User is a data analyst"
and may sit below the similarity floor; its *topic* is still plain. Each topic below has a few
question prototypes and the attributes that answer it. The prototypes are embedded once per
embedder (the local model: a few milliseconds, cached for the process) and compared with the
query's vectors, which recall has already computed (with and without the names the query
contains: both must match).

The rule (its numbers are in constants.py): a topic matches when the best similarity of the query
to one of its prototypes is at least `ATTRIBUTE_MATCH_THRESHOLD`, and it is within
`ATTRIBUTE_MATCH_MARGIN` of the best topic's (a question between two close topics, "where is the
user from" / "where does the user live", matches both; one that is far from every prototype
matches none). A memory whose slot's attribute answers a matched topic has attribute evidence: it
passes the floor and the gate (evidence.py) as a memory with a term in common would, and (when
recall adjusts scores) its score gets ATTRIBUTE_LIFT, so that it ranks above facts that merely
sound like the question. Memories without a slot (everything not written by /remember, e.g. a
LoCoMo turn) never get this evidence, so recall over them is unchanged.
"""

import logging
from dataclasses import dataclass

import numpy as np

from app.embeddings import Embedder
from app.recall import constants
from app.recall.rank import Scored

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Topic:
    name: str
    attributes: frozenset[str]
    prototypes: tuple[str, ...]


def _topic(name: str, attributes: str, *prototypes: str) -> Topic:
    return Topic(name, frozenset(attributes.split()), prototypes)


TOPICS = (
    _topic(
        "name",
        "name",
        "what is the user's name",
        "what is my name",
        "what am I called",
        "what should I call the user",
    ),
    _topic(
        "age",
        "age birthday birth_date",
        "how old is the user",
        "how old am I",
        "what is the user's age",
        "when is the user's birthday",
        "when is my birthday",
    ),
    _topic(
        "home",
        "residence",
        "where does the user live",
        "where do I live",
        "which city is the user based in",
        "who does the user live with",
        "where is the user's home",
    ),
    _topic(
        "origin",
        "origin hometown birthplace nationality",
        "where is the user from",
        "where did the user grow up",
        "where was the user born",
        "what nationality is the user",
    ),
    _topic(
        "work",
        "job_title employer",
        "what does the user do for work",
        "what is the user's job",
        "what do I do for a living",
        "where does the user work",
        "which company does the user work for",
        "who is my employer",
    ),
    _topic(
        "study",
        "school study major",
        "what does the user study",
        "which university does the user attend",
        "where does the user go to school",
        "what degree is the user doing",
    ),
    _topic(
        "partner",
        "relationship_status spouse partner family",
        "is the user married",
        "does the user have a partner",
        "who is the user's husband or wife",
        "does the user have a girlfriend or boyfriend",
        "is the user single",
    ),
    _topic(
        "family",
        "family",
        "does the user have children",
        "how many kids does the user have",
        "does the user have any brothers or sisters",
        "who is in the user's family",
    ),
    _topic(
        "pet",
        "pet",
        "does the user have a pet",
        "what pets does the user have",
        "what is the user's dog called",
        "what is my cat's name",
    ),
    _topic(
        "diet",
        "diet allergy condition",  # a dietary restriction may be a condition (coeliac)
        "what is the user's diet",
        "does the user eat meat",
        "is the user vegetarian or vegan",
        "does the user have any dietary restrictions",
        "what can't the user eat",
    ),
    _topic(
        "health",
        "condition allergy diet",
        "does the user have any health conditions",
        "is the user allergic to anything",
        "what am I allergic to",
        "does the user have a medical condition",
    ),
    _topic(
        "belongings",
        "vehicle possession",
        "what car does the user drive",
        "does the user own a car",
        "what does the user own",
    ),
    _topic(
        "likes",
        "favorite likes",
        "what is the user's favourite film",
        "what does the user like",
        "what food does the user hate",
        "what is my favourite colour",
        "what is the user's favourite food",
        "who is my favourite singer",
        "what kind of music does the user enjoy",
    ),
    _topic(
        "pastimes",
        "activity skill likes",  # a pastime is often said as a liking: "I love bouldering"
        "what are the user's hobbies",
        "what does the user do in their free time",
        "what does the user do for fun",
        "does the user play any sports",
        "how does the user keep fit",
        "does the user smoke or drink",
        "what are the user's habits",
    ),
    _topic(
        "skills",
        "language skill activity",
        "what languages does the user speak",
        "does the user play a musical instrument",
        "what skills does the user have",
        "which language is the user learning",
    ),
    _topic(
        "tech",
        "programming_language tool project",
        "which programming language does the user use",
        "what database does the user's team use",
        "what is the user's tech stack",
        "which editor does the user use",
        "which cloud provider does the user deploy on",
        "what is the user building",
    ),
    _topic(
        "plans",
        "goal event",
        "what are the user's goals",
        "what is the user planning",
        "what are the user's plans for next year",
        "what is coming up for the user",
        "what is the user training for",
    ),
)


@dataclass(frozen=True)
class Prototypes:
    vectors: np.ndarray  # one unit vector per prototype, every topic's in order
    topic_of: np.ndarray  # the index in TOPICS of each row


_cache: dict[tuple[str, str, int], Prototypes] = {}


async def prototypes(embedder: Embedder) -> Prototypes | None:
    """The prototypes' vectors by this embedder, embedded on first use; None if it fails (then
    no memory gets attribute evidence, and the rest of the floor decides)."""
    key = (embedder.name, embedder.model, embedder.dimension)
    if key in _cache:
        return _cache[key]
    texts = [text for topic in TOPICS for text in topic.prototypes]
    owners = [i for i, topic in enumerate(TOPICS) for _ in topic.prototypes]
    try:
        vectors = await embedder.embed(texts)
    except Exception:  # the embedder's health records it
        log.warning("attribute prototypes could not be embedded; no attribute evidence")
        return None
    found = Prototypes(np.asarray(vectors, dtype=np.float32), np.asarray(owners))
    _cache[key] = found
    return found


def topic_scores(query_vectors: list[np.ndarray], found: Prototypes) -> np.ndarray:
    """Per topic, the best cosine of the query to one of its prototypes; for a query embedded
    both with and without the names it contains, the lower of the two (both must match: "What
    is the official language of Mozambique?" without its name looks like a question about the
    user's languages)."""
    scores = []
    for vector in query_vectors:
        best = np.full(len(TOPICS), -1.0, dtype=np.float32)
        np.maximum.at(best, found.topic_of, found.vectors @ vector)
        scores.append(best)
    lowest: np.ndarray = np.min(scores, axis=0)
    return lowest


def matched_attributes(query_vectors: list[np.ndarray], found: Prototypes | None) -> frozenset[str]:
    """The attributes of the topics the query matches (threshold and margin, see above)."""
    if found is None or not query_vectors:
        return frozenset()
    scores = topic_scores(query_vectors, found)
    top = float(scores.max())
    if top < constants.ATTRIBUTE_MATCH_THRESHOLD:
        return frozenset()
    matched = [TOPICS[i] for i in np.flatnonzero(scores >= top - constants.ATTRIBUTE_MATCH_MARGIN)]
    return frozenset(a for topic in matched for a in topic.attributes)


def fills(slot: str | None, attributes: frozenset[str]) -> bool:
    """Whether a memory filling `slot` answers one of the matched attributes."""
    return slot is not None and slot.split(":", 1)[0] in attributes


def lifted(scored: Scored) -> Scored:
    """The score of a memory with attribute evidence, lifted by constants.ATTRIBUTE_LIFT."""
    lift = constants.ATTRIBUTE_LIFT
    components = {**scored.components, "attribute": lift}
    return Scored(scored.id, scored.score + lift, scored.match, components)
