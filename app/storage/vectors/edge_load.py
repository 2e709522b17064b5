"""Loading an Edge shard from disk: the layout it records, a shard whose dense vector a crash
left out, and the window vector a shard made before it lacks. Runs on the shard thread."""

from pathlib import Path

import qdrant_edge as qe

from app.storage.vectors.base import DENSE, WINDOW, VectorIndexError
from app.storage.vectors.edge_shard import create_dense, edge_config, stored_dense, stored_vector

CONFIG_FILE = "edge_config.json"
STORED_DATATYPES = {
    "float32": qe.VectorStorageDatatype.Float32,
    "float16": qe.VectorStorageDatatype.Float16,
}
# Edge's search pool defaults to four threads per core. Every engine call already runs on the
# one shard thread, so more pool threads only add hand-offs: with one, recall's search step is
# shorter (compared side by side with `bench/recall_ab.py`).
SEARCH_THREADS = 1


def load_shard(path: Path, dimension: int) -> tuple[qe.EdgeShard, bool]:
    """An existing shard, and whether it just got its window vector; the engine's opaque errors
    become ours."""
    dense = stored_dense(path / CONFIG_FILE, dimension)
    try:
        if not dense:
            return _load_without_dense(path, dimension)
        shard = qe.EdgeShard.load(str(path), stored_config(path, dimension))
        return shard, _add_window(shard, path, dimension)
    except Exception as exc:
        if "WouldBlock" in str(exc):
            raise VectorIndexError(
                f"Edge shard {path} is already open (in this or another process); "
                "a shard directory can have only one owner"
            ) from exc
        raise VectorIndexError(f"cannot load Edge shard {path}: {exc}") from exc


def stored_config(path: Path, dimension: int) -> qe.EdgeConfig:
    """The layout as the shard on disk records it. A shard made before dense vectors were
    stored as float16 keeps float32 until its next change of model (see `drop_dense`)."""
    dense = stored_vector(path / CONFIG_FILE, DENSE)
    datatype = STORED_DATATYPES[dense.get("datatype", "float32")]
    window = stored_vector(path / CONFIG_FILE, WINDOW)
    window_type = STORED_DATATYPES[window.get("datatype", "float32")] if window else None
    return edge_config(dimension, datatype, window_type, SEARCH_THREADS)


def _load_without_dense(path: Path, dimension: int) -> tuple[qe.EdgeShard, bool]:
    """A crash inside `drop_dense`, between deleting the dense vector and creating it again,
    leaves a shard without one: it opens as stored and gets it back, empty. Its recorded
    model is still the old one, so the start re-embeds everything, as the switch intended."""
    shard = qe.EdgeShard.load(str(path), None)
    shard.update(create_dense(dimension))
    return shard, _add_window(shard, path, dimension)


def _add_window(shard: qe.EdgeShard, path: Path, dimension: int) -> bool:
    """Adds the window vector, empty, to a shard made before it existed; True if it did."""
    if stored_vector(path / CONFIG_FILE, WINDOW):
        return False
    shard.update(create_dense(dimension, WINDOW))
    return True
