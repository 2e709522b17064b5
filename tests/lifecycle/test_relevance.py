"""The relevance curve and forgetting's policy: pure functions, a fixed clock."""

from datetime import UTC, datetime, timedelta

import pytest

from app.lifecycle.policy import ForgetPolicy, decide, protection
from app.lifecycle.relevance import Facts, RelevanceConfig, relevance
from app.memories.ttl import default_ttl, ttl_table
from app.models import to_iso

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def facts(age_days: float = 0, idle_days: float | None = None, **fields) -> Facts:
    created = NOW - timedelta(days=age_days)
    accessed = NOW - timedelta(days=idle_days) if idle_days is not None else created
    values = {
        "type": "Fact",
        "importance": 0.5,
        "confidence": 0.5,
        "created_at": to_iso(created),
        "last_accessed": to_iso(accessed),
    }
    values.update(fields)
    return Facts(**values)


def test_older_is_less_relevant():
    scores = [relevance(facts(age), NOW) for age in (0, 30, 180, 365, 730)]
    assert scores == sorted(scores, reverse=True)
    assert scores[0] > scores[-1]


def test_each_type_ages_at_its_own_rate():
    event = relevance(facts(90, type="Event"), NOW)
    fact = relevance(facts(90, type="Fact"), NOW)
    decision = relevance(facts(90, type="Decision"), NOW)
    assert event < fact < decision


def test_a_pinned_memory_never_decays():
    assert relevance(facts(3650, pinned=True), NOW) == relevance(facts(0, pinned=True), NOW)


def test_a_recent_use_restores_an_old_memory():
    unused = relevance(facts(365), NOW)
    used_yesterday = relevance(facts(365, idle_days=1, access_count=3), NOW)
    used_long_ago = relevance(facts(365, idle_days=200, access_count=3), NOW)
    assert used_yesterday > used_long_ago > unused


def test_more_uses_count_more():
    once = relevance(facts(365, idle_days=5, access_count=1), NOW)
    often = relevance(facts(365, idle_days=5, access_count=20), NOW)
    assert often > once


def test_importance_confidence_and_links_raise_relevance():
    base = relevance(facts(60), NOW)
    assert relevance(facts(60, importance=0.9), NOW) > base
    assert relevance(facts(60, confidence=0.95), NOW) > base
    assert relevance(facts(60, relationship_count=8), NOW) > base


def test_the_importance_floor_holds_however_old():
    config = RelevanceConfig(importance_floor=0.15)
    assert relevance(facts(10_000, importance=0.8), NOW, config) == pytest.approx(0.12)
    assert relevance(facts(10_000, importance=0.0), NOW, config) < 0.001


def test_bounded_and_rounded():
    top = relevance(facts(0, importance=1.0, confidence=1.0, relationship_count=1000), NOW)
    assert top == 1.0
    assert 0 <= relevance(facts(50_000, importance=0.0), NOW) <= 1


def test_a_future_creation_time_counts_as_now():
    assert relevance(facts(-5), NOW) == relevance(facts(0), NOW)


def test_configured_half_lives_apply():
    slow = RelevanceConfig(half_lives={"Fact": 3650})
    assert relevance(facts(365), NOW, slow) > relevance(facts(365), NOW)


def props(age_days: float = 400, idle_days: float | None = None, **fields) -> dict:
    created = NOW - timedelta(days=age_days)
    accessed = NOW - timedelta(days=idle_days) if idle_days is not None else created
    values = {
        "type": "Fact",
        "importance": 0.3,
        "created_at": to_iso(created),
        "last_accessed": to_iso(accessed),
        "layer": "consolidated",
    }
    return {**values, **fields}


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"pinned": True}, "pinned"),
        ({"protected": True}, "protected"),
        ({"importance": 0.7}, "important"),
        ({"type": "Decision"}, "protected_type"),
        ({"age_days": 10}, "grace_period"),
        ({"idle_days": 29}, "grace_period"),
        ({"layer": "raw"}, "raw_layer"),
    ],
)
def test_every_protection_keeps_a_memory(fields, reason):
    policy = ForgetPolicy(archive_below=0.5, delete_below=0.4)
    memory = props(**fields)
    assert protection(memory, NOW, policy) == reason
    assert decide(memory, 0.0, NOW, policy) == ("keep", reason)


def test_below_the_thresholds_archive_then_delete():
    policy = ForgetPolicy(archive_below=0.1, delete_below=0.05)
    assert decide(props(), 0.2, NOW, policy) == ("keep", None)
    assert decide(props(), 0.08, NOW, policy) == ("archive", None)
    assert decide(props(), 0.01, NOW, policy) == ("delete", None)


def test_deletion_is_off_by_default():
    assert decide(props(), 0.0, NOW, ForgetPolicy()) == ("archive", None)


def test_ttl_defaults_per_type():
    assert default_ttl("Event") == 90
    assert default_ttl("Habit") == 60
    assert default_ttl("Context") == 7
    assert default_ttl("Fact") is None
    assert default_ttl("Preference") is None
    assert ttl_table(30, 0, 7) == {"Event": 30, "Context": 7}
