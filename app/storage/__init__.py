"""The stores Engram runs on, handed to services together."""

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
