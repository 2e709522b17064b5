"""The Python examples of docs/clients/*.md, run as written (each in its own interpreter) against
a real Engram, with ENGRAM_URL and ENGRAM_API_KEY set as the pages say; and the README's quick
start, run as written by bash with the key where the README says it is."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ALICE_KEY

ROOT = Path(__file__).parents[2]
PAGES = sorted((ROOT / "docs" / "clients").glob("*.md"))
BLOCK = re.compile(r"```python\n(.*?)```", re.S)
SHELL = re.compile(r"```bash\n(.*?)```", re.S)


def examples() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for number, code in enumerate(BLOCK.findall(page.read_text()), 1):
            found.append((f"{page.relative_to(ROOT)}#{number}", code))
    return found


def test_every_client_page_has_an_example():
    pages = {name.split("#")[0] for name, _ in examples()}
    expected = {"langgraph", "langchain", "openai-agents", "llamaindex", "python"}
    assert {f"docs/clients/{page}.md" for page in expected} <= pages


@pytest.mark.parametrize(("name", "code"), examples(), ids=[name for name, _ in examples()])
def test_the_example_runs(name: str, code: str, engram_url: str, tmp_path: Path):
    env = os.environ | {"ENGRAM_URL": engram_url, "ENGRAM_API_KEY": ALICE_KEY}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]


def test_the_readme_quick_start_runs(engram_url: str, tmp_path: Path):
    quick_start = (ROOT / "README.md").read_text().split("## Quick start", 1)[1]
    script = SHELL.findall(quick_start)[0].replace("localhost:8001", engram_url)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "api_key").write_text(ALICE_KEY)
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    stored, answers = done.stdout.split("\n", 1)  # the id, then curl's answers, unseparated
    assert re.fullmatch(r"[0-9a-f-]{36}", stored)
    recalled, job = answers.split("}{", 1)
    # The memory is embedded by a worker meanwhile, so whether this recall finds it is a race.
    assert recalled.startswith('{"status":"success","query":"what does Alice drink"')
    assert job.startswith('"job_id":"remember:')
