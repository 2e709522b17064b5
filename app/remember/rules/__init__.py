"""The no-LLM reader: a turn's first-person statements → standalone third-person facts.

One entry point, `extract_facts_by_rules`; the rest of `app/remember` (the endpoint, the job, the
pipeline, the attribute model) sees nothing else of the grammar but `values.slot_key`. Inside:
`normalise` (chat spellings, emoji, shouting), `clauses` (sentences split into prepared clauses)
and `dates` (their date expressions); `frames` (the speaker's predicates in the dependency
parse), read by `readers`, `people_readers` and `statements` (sharing `reading`); the template
rules, `patterns` matched and `builders` turned into facts; `fact_kinds`, `values` and `habits`
for what every fact needs; `extract` runs them all and reconciles the two readings. The word
lists are the shared leaf `app/lexicon.py`.
"""

from app.remember.rules.extract import extract_facts_by_rules

__all__ = ["extract_facts_by_rules"]
