"""docs/configuration.md is what `python -m app.config_docs` renders from the settings, and the
settings' domain classes add up to `Settings`: every field in exactly one, described."""

import subprocess
import sys
from collections import Counter
from pathlib import Path

from pydantic import AliasChoices

from app.config import Settings
from app.config_docs import DOC, domains, render

ROOT = Path(__file__).resolve().parents[1]


def test_the_committed_page_is_what_the_settings_render() -> None:
    assert DOC.read_text() == render(), (
        "docs/configuration.md is stale: run `python -m app.config_docs`"
    )


def test_every_field_is_in_one_domain_and_described() -> None:
    owners = Counter(name for domain in domains() for name in domain.model_fields)
    assert set(owners) == set(Settings.model_fields)
    assert [name for name, count in owners.items() if count > 1] == []
    assert [name for name, f in Settings.model_fields.items() if not f.description] == []


def test_every_variable_has_its_row() -> None:
    rows = [line for line in DOC.read_text().splitlines() if line.startswith("| `")]
    for field in Settings.model_fields.values():
        alias = field.validation_alias
        variables = alias.choices if isinstance(alias, AliasChoices) else [alias]
        row = next(row for row in rows if row.startswith(f"| `{variables[0]}`"))
        assert all(f"`{variable}`" in row for variable in variables), row
    assert any(row.startswith("| `ENGRAM_MODEL_DIR` |") for row in rows)  # read outside Settings


def test_the_check_fails_on_a_stale_page(tmp_path: Path) -> None:
    check = [sys.executable, "-m", "app.config_docs", "--check"]
    assert subprocess.run(check, cwd=ROOT, capture_output=True).returncode == 0
    stale = tmp_path / "configuration.md"
    stale.write_text(
        DOC.read_text().replace("| `ENGRAM_PORT` | 8001 |", "| `ENGRAM_PORT` | 8000 |")
    )
    refused = subprocess.run([*check, "--doc", str(stale)], cwd=ROOT, capture_output=True)
    assert refused.returncode == 1 and b"stale" in refused.stderr
    subprocess.run([*check[:-1], "--doc", str(stale)], cwd=ROOT, check=True)
    assert stale.read_text() == DOC.read_text()
