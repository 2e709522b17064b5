"""auto_decompose: sub-queries from one query (AutoMem's capitalised entities and topic words).

"What database did Theo pick for Lodestar's audit trails?" →
["Theo", "Lodestar", "database pick audit trails"]: each thing the query names, by capitalisation
(runs of capitalised words stay together: "New York"), then its topic words as one keyword
query. Recall runs each as one more query and merges the results, as it does for `queries`,
with a sub-query's matches counting for a share of the query's own (rank.Weights).

A capitalised word that opens a sentence is not a name unless it is possessive ("Caroline's
hobbies?"); months and weekdays are not names (they are time, which `time_query` handles).
"""

import re

from app.enrichment.wordlists import PRONOUNS, STOPWORDS
from app.lexicon import CALENDAR_NAMES

MAX_SUB_QUERIES = 4  # the named things (at most three), then the topic words
WORD = re.compile(r"[^\W_][\w'’-]*")
POSSESSIVE = re.compile(r"['’]s$")
SENTENCE_END = re.compile(r"[.!?:;]\s*$")
ASKING = frozenset(
    (
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "tell",
        "show",
        "find",
        "give",
        "know",
        "let",
        "please",
    )
)
NOT_TOPICS = STOPWORDS | PRONOUNS | ASKING


def sub_queries(query: str) -> list[str]:
    """The named things of the query, then its topic words; none equal to the query itself."""
    matches = list(WORD.finditer(query))
    runs = list(dict.fromkeys(_named_runs(query, matches)))[: MAX_SUB_QUERIES - 1]
    in_runs = {word for run in runs for word in run.split()}
    words = [POSSESSIVE.sub("", m.group()) for m in matches]
    topics = " ".join(
        w.lower() for w in words if w not in in_runs and len(w) > 2 and w.lower() not in NOT_TOPICS
    )
    return [p for p in [*runs, topics] if p and p.lower() != query.strip().lower()]


def _opens_sentence(query: str, start: int) -> bool:
    before = query[:start]
    return not before.strip() or bool(SENTENCE_END.search(before))


def _named_runs(query: str, matches: list[re.Match[str]]) -> list[str]:
    """Runs of capitalised words (split by punctuation: "Ann, Ben" are two) that are not
    sentence openers, months or weekdays."""
    runs: list[list[str]] = [[]]
    previous_end = 0
    for match in matches:
        token, word = match.group(), POSSESSIVE.sub("", match.group())
        if query[previous_end : match.start()].strip():
            runs.append([])
        previous_end = match.end()
        if (_opens_sentence(query, match.start()) and word == token) or not _is_name(word):
            runs.append([])
            continue
        runs[-1].append(word)
        if word != token:  # "Lodestar's audit": the possessive ends the run
            runs.append([])
    return [" ".join(run) for run in runs if run]


def _is_name(word: str) -> bool:
    lowered = word.lower()
    return word[0].isupper() and lowered not in NOT_TOPICS and lowered not in CALENDAR_NAMES
