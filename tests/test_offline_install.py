"""Once installed, the make targets do not reach the package index.

`make run` and `make test` depend on `make install`; its steps must all be up to date after one
install, and the FalkorDB module step must keep a module that has the pinned sha256 rather than
download it again. Every check runs with the package index pointed at a closed local port and a
`python` that records any call, so a step that would download fails loudly.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULE = ROOT / ".venv" / "falkordb" / "falkordb.so"
CLOSED_INDEX = "http://127.0.0.1:9/"
LONG_AGO = 946_684_800  # 2000-01-01: sources older than any stamp
STUB_PYTHON = '#!/bin/sh\necho "$@" >> "$(dirname "$0")/../python-calls"\nexit 1\n'


def _offline_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "MAKE"))}
    env.update(PIP_INDEX_URL=CLOSED_INDEX, PIP_RETRIES="0", PIP_TIMEOUT="1")
    env.pop("MFLAGS", None)
    return env


def _stub_venv(venv: Path) -> Path:
    """A venv whose python records its arguments and fails: any pip call shows up."""
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    python.write_text(STUB_PYTHON)
    python.chmod(0o755)
    return venv / "python-calls"


def _installed_checkout(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the repository's files, all older than an installed .venv's stamps."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    tree = tmp_path / "checkout"
    for name in listed:
        source = ROOT / name
        if not source.is_file():
            continue
        target = tree / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, target)
        os.utime(target, (LONG_AGO, LONG_AGO))
    calls = _stub_venv(tree / ".venv")
    (tree / ".venv" / "falkordb").mkdir()
    (tree / ".venv" / ".installed").touch()
    (tree / ".venv" / ".project-installed").touch()
    (tree / ".venv" / ".clients-installed").touch()
    (tree / ".venv" / "falkordb" / ".installed").touch()
    return tree, calls


def _make(tree: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", *args],
        cwd=tree,
        env=_offline_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_make_install_does_nothing_once_installed(tmp_path: Path) -> None:
    tree, calls = _installed_checkout(tmp_path)
    done = _make(tree, "install")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not calls.exists(), f"make install ran python: {calls.read_text()}"


@pytest.mark.parametrize("target", ["run", "test", "lint"])
def test_make_targets_plan_no_install_step_once_installed(tmp_path: Path, target: str) -> None:
    tree, _ = _installed_checkout(tmp_path)
    plan = _make(tree, "-n", target)
    assert plan.returncode == 0, plan.stdout + plan.stderr
    assert "pip" not in plan.stdout, plan.stdout
    assert "install_falkordb_module" not in plan.stdout, plan.stdout


def test_module_step_keeps_a_module_with_the_pinned_sha(tmp_path: Path) -> None:
    assert MODULE.is_file(), f"run `make install` first: {MODULE} is missing"
    venv = tmp_path / "venv"
    calls = _stub_venv(venv)
    (venv / "falkordb").mkdir()
    (venv / "falkordb" / "falkordb.so").symlink_to(MODULE)
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "install_falkordb_module.sh"), str(venv)],
        env=_offline_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "already installed" in done.stdout
    assert not calls.exists(), f"the module step ran python: {calls.read_text()}"


def test_module_step_replaces_a_module_with_another_sha(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    calls = _stub_venv(venv)
    (venv / "falkordb").mkdir()
    (venv / "falkordb" / "falkordb.so").write_bytes(b"not the pinned module")
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "install_falkordb_module.sh"), str(venv)],
        env=_offline_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "pip download" in calls.read_text()
