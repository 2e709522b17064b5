"""Every relative link in README.md and docs/ leads somewhere: to a file or folder of the
repository and, when it names an anchor in a Markdown file, to a heading of that file."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)
CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} +(.+?) *#*$", re.MULTILINE)


def prose(text: str) -> str:
    """The text without code blocks and code spans, where a link is only an example."""
    return CODE.sub("", FENCE.sub("", text))


def anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives the headings: lower case, punctuation dropped, spaces as
    hyphens, a repeated one numbered."""
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(FENCE.sub("", markdown)):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def broken_links(document: Path) -> list[str]:
    broken = []
    for target in LINK.findall(prose(document.read_text())):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        linked = (document.parent / path).resolve() if path else document
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked.read_text()):
            broken.append(f"{target}: no such heading")
    return broken


def test_anchors_are_githubs() -> None:
    text = "# A\n## fsck: `POST /admin/fsck`\n## The issue's targets (7544b0a)\n## A\n"
    text += "```\n# not a heading\n```\n"
    assert anchors(text) == {"a", "fsck-post-adminfsck", "the-issues-targets-7544b0a", "a-1"}


def test_links_in_code_are_examples(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Page\n[up](#page) `[x](gone.md)`\n```\n[y](gone.md)\n```\n[z](#gone)\n")
    assert broken_links(page) == ["#gone: no such heading"]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda d: str(d.relative_to(ROOT)))
def test_every_relative_link_resolves(document: Path) -> None:
    assert broken_links(document) == []
