"""The stores Engram runs on, handed to services together (`Stores`).

One package per store: falkordb/ (the server and the client every graph query goes through),
graph/ (GraphStore and all the Cypher), vectors/ (the vector index: Qdrant Edge or a Qdrant
server), artifacts/ (the bytes of attached files). Beside them, what spans the stores: their
health (health.py), the vector point a memory mirrors into (mirror.py), which stores belong to
one deployment (deployment.py), the lock on the data directory the embedded stores live in
(data_dir_lock.py), the scan of its files after an erasure (file_scan.py), and the quieting of
store outages in the libraries' logs (outage.py).
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from app.storage.artifacts.files import ArtifactStore
from app.storage.graph.store import GraphStore
from app.storage.health import HealthBoard
from app.storage.vectors import VectorIndex

if TYPE_CHECKING:
    from app.jobs.queue import JobQueue


@dataclass
class Stores:
    graph: GraphStore
    vectors: VectorIndex
    health: HealthBoard = field(default_factory=HealthBoard)
    jobs: "JobQueue | None" = None
    artifacts: ArtifactStore | None = None  # files attached to memories; None: not served
    # ENGRAM_DATA_DIR when an embedded store keeps its files there (erasure checks them).
    data_dir: Path | None = None
