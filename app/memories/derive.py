"""Fields derived from what a client sends: the content hash and the tag prefixes."""

import hashlib


def content_hash(content: str) -> str:
    """Hash of the normalised content, for tombstones and duplicate detection."""
    normalised = " ".join(content.lower().split())
    return hashlib.sha256(normalised.encode()).hexdigest()


def tag_prefixes(tags: list[str]) -> list[str]:
    """Lower-cased cumulative prefixes split on ':' and '/': `Project:a/b` → project, project:a…"""
    prefixes: dict[str, None] = {}
    for tag in tags:
        lowered = tag.lower()
        for i, char in enumerate(lowered):
            if char in ":/" and i:
                prefixes[lowered[:i]] = None
        prefixes[lowered] = None
    return list(prefixes)
