"""The lifecycle simulation keeps forgetting's two promises on a short run."""

import argparse

from bench.lifecycle_sim import report, simulate


def test_a_short_run_archives_something_and_breaks_no_promise():
    args = argparse.Namespace(days=75, writes_per_day=6, seed=3)
    outcome = simulate(args, 0.1)
    assert outcome.written == 450
    assert outcome.archived_by_month[-1] > 0
    assert outcome.used_recently_archived == 0
    assert outcome.important_archived == 0
    assert "| 0.1 |" in report([outcome])
