"""auto_decompose: sub-queries from one query (AutoMem's capitalised entities and topic words).

"What database did Theo pick for Lodestar's audit trails?" →
["Theo", "Lodestar", "database pick audit trails"]: each thing the query names, by capitalisation
(runs of capitalised words stay together: "New York"), then its topic words as one keyword
query. Recall runs each as one more query and merges the results, as it does for `queries`.
"""

import re

from app.enrichment.wordlists import PRONOUNS, STOPWORDS

MAX_SUB_QUERIES = 4
WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’-]*")
CAPITALISED = re.compile(r"[A-Z][A-Za-z0-9-]*")
POSSESSIVE = re.compile(r"['’]s$")
ASKING = frozenset(("what", "which", "who", "whom", "whose", "when", "where", "why", "how",
                    "tell", "show", "find", "give", "know"))  # fmt: skip
NOT_TOPICS = STOPWORDS | PRONOUNS | ASKING


def sub_queries(query: str) -> list[str]:
    """The named things of the query, then its topic words; at most MAX_SUB_QUERIES, none equal
    to the query itself."""
    tokens = [m.group() for m in WORD.finditer(query)]
    runs = _named_runs(tokens)
    in_runs = {word for run in runs for word in run.split()}
    topics = " ".join(
        word.lower()
        for word in (POSSESSIVE.sub("", t) for t in tokens)
        if word not in in_runs and len(word) > 2 and word.lower() not in NOT_TOPICS
    )
    parts = [*dict.fromkeys(runs), topics]
    return [p for p in parts if p and p.lower() != query.strip().lower()][:MAX_SUB_QUERIES]


def _named_runs(tokens: list[str]) -> list[str]:
    """Runs of capitalised words. The first word counts only as a possessive ("Caroline's
    hobbies?"): otherwise it is capitalised because it opens the question ("Recommend …")."""
    runs: list[list[str]] = [[]]
    for position, token in enumerate(tokens):
        word = POSSESSIVE.sub("", token)
        opening = position == 0 and word == token
        if opening or not CAPITALISED.fullmatch(word) or word.lower() in NOT_TOPICS:
            runs.append([])
            continue
        runs[-1].append(word)
        if word != token:  # "Lodestar's audit": the possessive ends the run
            runs.append([])
    return [" ".join(run) for run in runs if run]
