"""/recall's response encoder writes the JSON that Starlette's JSONResponse writes."""

import json

from fastapi.responses import JSONResponse

from app.recall.router import FastJSONResponse


def test_the_fast_encoder_writes_json_responses_bytes():
    content = {
        "query": 'thé 😀 \u2028 \x1f \\ "',
        "score": 0.908912,
        "big": 2**70,
        "none": None,
        "ok": True,
        "results": [{"components": {"a": 1.5, "b": -0.0, "c": 0.30000000000000004}}],
    }
    assert FastJSONResponse(content).body == JSONResponse(content).body


def test_the_fast_encoder_differs_only_in_how_it_spells_a_tiny_float():
    tiny = {"score": 1e-06}
    assert json.loads(FastJSONResponse(tiny).body) == json.loads(JSONResponse(tiny).body) == tiny


def test_nan_becomes_null_where_json_dumps_would_refuse_it():
    assert json.loads(FastJSONResponse({"score": float("nan")}).body) == {"score": None}
