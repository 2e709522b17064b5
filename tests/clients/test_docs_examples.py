"""The Python examples of docs/clients/*.md and the README's quick start, run as written
(each in its own interpreter) against a real Engram, with ENGRAM_URL and ENGRAM_API_KEY set as
the pages say."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ALICE_KEY

ROOT = Path(__file__).parents[2]
PAGES = [*sorted((ROOT / "docs" / "clients").glob("*.md")), ROOT / "README.md"]
BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def examples() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for number, code in enumerate(BLOCK.findall(page.read_text()), 1):
            found.append((f"{page.relative_to(ROOT)}#{number}", code))
    return found


def test_every_client_page_has_an_example():
    pages = {name.split("#")[0] for name, _ in examples()}
    expected = {"langgraph", "langchain", "openai-agents", "llamaindex", "python"}
    assert {f"docs/clients/{page}.md" for page in expected} | {"README.md"} <= pages


@pytest.mark.parametrize(("name", "code"), examples(), ids=[name for name, _ in examples()])
def test_the_example_runs(name: str, code: str, engram_url: str, tmp_path: Path):
    if name == "README.md#1":
        code = code.replace('"http://localhost:8001"', repr(engram_url))
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
