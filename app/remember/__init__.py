"""POST /remember: durable facts extracted from conversation turns.

Extraction is pure and lives in `facts` (the shapes and the attribution filter), `rules` (the
no-LLM extractor), `llm_extract` (one LLM call) and `contradiction` (does a new fact replace an
old one?). The endpoint, the job and storage build on them.
"""
