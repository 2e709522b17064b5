"""docs/mcp.md lists the tools the server lists: its generated section is what
`python -m app.mcp.catalog` renders from the server's own tools and resources, and the README
links to it rather than keeping a list of its own."""

import re
import subprocess
import sys
from pathlib import Path

from app.mcp.caller import refusing_caller
from app.mcp.catalog import DOC, END, START, render, with_section
from app.mcp.http import build_server

ROOT = Path(__file__).resolve().parents[2]


async def test_the_committed_tool_docs_are_what_the_server_lists() -> None:
    committed = DOC.read_text()
    assert with_section(committed, await render()) == committed, (
        "docs/mcp.md is stale: run `python -m app.mcp.catalog`"
    )


async def test_every_tool_and_parameter_is_documented() -> None:
    section = DOC.read_text().split(START)[1].split(END)[0]
    server = build_server(refusing_caller("listing only"))
    for tool in await server.list_tools():
        assert f"### {tool.name}\n" in section
        own = section.split(f"### {tool.name}\n")[1].split("\n### ")[0]
        for parameter in tool.input_schema.get("properties", {}):
            assert f"| `{parameter}` |" in own, (tool.name, parameter)


def test_the_check_fails_on_a_stale_doc(tmp_path: Path) -> None:
    check = [sys.executable, "-m", "app.mcp.catalog", "--check"]
    assert subprocess.run(check, cwd=ROOT, capture_output=True).returncode == 0
    stale = tmp_path / "mcp.md"
    stale.write_text(DOC.read_text().replace("### delete_artifact\n", "", 1))
    refused = subprocess.run([*check, "--doc", str(stale)], cwd=ROOT, capture_output=True)
    assert refused.returncode == 1 and b"stale" in refused.stderr
    subprocess.run([*check[:-1], "--doc", str(stale)], cwd=ROOT, check=True)
    assert stale.read_text() == DOC.read_text()


def test_the_readme_links_to_the_tool_list_instead_of_listing_tools() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "docs/mcp.md" in readme
    assert not re.search(r"tools remember, store, recall", readme)


def test_only_the_generated_list_counts_the_tools() -> None:
    """A count written by hand goes stale with the next tool; the generated one cannot."""
    counted = re.compile(r"\b(\d+|[a-z]+teen|twenty[-\w]*) (MCP )?tools\b", re.IGNORECASE)
    pages = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
    stray = [p.name for p in pages if p != DOC and counted.search(p.read_text())]
    assert stray == []
    assert counted.search(DOC.read_text().split(START)[1])
