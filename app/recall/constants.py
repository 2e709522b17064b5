"""The ranking's fixed numbers, in one place.

Recall's tunable knobs are settings (`RECALL_*` in app/config.py, the only place their defaults
live; app/recall/tuning.py builds the scoring's weights from them). What is here changes ranking
too but is not a setting: each number is part of a mechanism rather than a preference, and each
says why it is what it is. A test that needs another value patches this module.
"""

# How many candidates each channel fetches: `limit` × FETCH_FACTOR, at least FETCH_MIN, at most
# FETCH_MAX (the fusion needs depth beyond the page; past 200 the tail never reaches the page).
FETCH_FACTOR = 4
FETCH_MIN = 50
FETCH_MAX = 200
# How many fused candidates are read from the graph and scored: `limit` × SHORTLIST_FACTOR, at
# least SHORTLIST_MIN (the graph read is the costly step; below 30 the context lift loses seeds).
SHORTLIST_FACTOR = 3
SHORTLIST_MIN = 30

# Pseudo-relevance feedback (feedback.py): the best first-pass matches averaged into a second
# query vector, and the centroid's weight beside the query's own (Rocchio's beta).
FEEDBACK_DOCS = 5
FEEDBACK_BETA = 1.0

# Query terms in common that make a match strong on words alone (evidence.py: it passes the
# relevance gate whatever its similarity).
STRONG_TERMS = 2

# An entity shared with a seed counts as a relation of average strength (expansion.py).
ENTITY_STRENGTH = 0.5

# A memory the lifecycle has not scored yet counts as this relevance, so ranking is unchanged
# until the first decay pass (rank.py).
UNSCORED_RELEVANCE = 0.5

# AutoMem's adaptive floor (rank.adaptive_cut): a drop after the first results larger than this
# share of the top score cuts the tail.
ADAPTIVE_GAP = 0.25

# Attribute evidence (attribute_evidence.py): a topic matches when a query is at least this
# similar to one of its prototypes and within the margin of the best topic's.
ATTRIBUTE_MATCH_THRESHOLD = 0.55
ATTRIBUTE_MATCH_MARGIN = 0.05
# Added to the score of a memory with attribute evidence (when recall adjusts scores): the fact
# that fills the attribute asked about ranks above facts that merely sound alike, or that are
# lifted as the neighbours of a match (the facts of one /remember call are neighbours, and the
# context lift is up to half of a match).
ATTRIBUTE_LIFT = 1.0

# A sentence of at least this many words that is not a question makes a turn a statement
# (rank.question_share): it is not penalised as a question however many it also asks.
STATEMENT_WORDS = 6

# A question about the user and a memory about the user (evidence.py): this similarity is
# enough to pass the floor and the gate ("what's my name?" — "hey, I am Marta, UX designer"
# sits at ~0.23, under the floor's 0.25); off-topic questions never get it.
PERSONAL_FLOOR = 0.15
