"""Recall's tuning comes from Settings: the defaults there are the scoring's defaults, and a
setting reaches the request's thresholds."""

from pathlib import Path

import pytest

from app.config import Settings
from app.recall.params import RecallRequest
from app.recall.select import thresholds
from app.recall.tuning import default_recall_config, recall_config
from tests.conftest import test_settings


def test_the_defaults_are_the_settings_defaults_whatever_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert recall_config(test_settings(tmp_path)) == default_recall_config()
    monkeypatch.setenv("RECALL_WEIGHT_BM25", "9")
    assert recall_config(Settings()).weights.channel_weights["bm25"] == 9
    assert default_recall_config().weights.channel_weights["bm25"] == 2.0


def test_the_relevance_gate_is_a_setting(tmp_path: Path) -> None:
    config = recall_config(test_settings(tmp_path, recall_relevance_gate=0.6))
    assert config.relevance_gate == 0.6
    assert thresholds(RecallRequest(query="q"), config).gate == 0.6


def test_the_gate_is_never_below_the_floor(tmp_path: Path) -> None:
    config = recall_config(test_settings(tmp_path, recall_relevance_gate=0.1))
    assert thresholds(RecallRequest(query="q"), config).gate == config.relevance_floor
    assert thresholds(RecallRequest(query="q", relevance_floor=0.5), config).gate == 0.5
