"""app/children.py: a child dies with its parent process, not with the thread that asked for it."""

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from app.children import popen_tied
from tests.processes import alive

ROOT = Path(__file__).resolve().parents[1]
# A parent that starts a tied child, says its pid, then waits to be killed.
PARENT = """
import sys, time
from app.children import popen_tied
child = popen_tied(["sleep", "600"])
print(child.pid, flush=True)
time.sleep(600)
"""


def test_a_child_started_from_a_short_lived_thread_outlives_that_thread():
    started: list[subprocess.Popen] = []
    thread = threading.Thread(target=lambda: started.append(popen_tied(["sleep", "600"])))
    thread.start()
    thread.join()
    child = started[0]
    try:
        # Tied to the thread that forked it, it would have been sent SIGTERM as the thread ended.
        with pytest.raises(subprocess.TimeoutExpired):
            child.wait(timeout=1)
    finally:
        child.kill()
        child.wait()


def test_a_child_dies_when_its_parent_is_killed_with_sigkill():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT
    )
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    try:
        assert alive(child)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=30)
        for _ in range(600):  # a bound (60 s), not a timing: ends once the child is gone
            if not alive(child):
                break
            threading.Event().wait(0.1)
        assert not alive(child)
    finally:
        if alive(child):
            os.kill(child, signal.SIGKILL)
        parent.stdout.close()
