"""Context hints of /recall (AutoMem's §5.4): what the caller is working on, as a soft boost.

`context_tags` and `context_types` name what to favour; `language` (or a file path's extension,
`active_path`) adds the tags and types that hold coding style for that language; `context` adds
its label as a tag. None of them filters: they add `context_priority` to matching memories.
"""

from pathlib import PurePosixPath

from app.memories.fields import parse_type
from app.recall.rank import ContextPriority

LANGUAGES = {
    "python": "python",
    "py": "python",
    "typescript": "typescript",
    "ts": "typescript",
    "javascript": "javascript",
    "js": "javascript",
    "node": "javascript",
    "go": "go",
    "golang": "go",
    "rust": "rust",
    "rs": "rust",
    "java": "java",
    "csharp": "csharp",
    "c#": "csharp",
    "cs": "csharp",
    "cpp": "cpp",
    "c++": "cpp",
    "cxx": "cpp",
    "swift": "swift",
}
EXTENSIONS = {
    ".py": "python",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".cs": "csharp",
    ".cpp": "cpp",
    ".cc": "cpp",
    ".hpp": "cpp",
    ".h": "cpp",
    ".swift": "swift",
}
STYLE_TYPES = ("Style", "Preference")


def language_of(language: str | None, active_path: str | None) -> str | None:
    """The canonical language named, or implied by the file's extension; None if unknown."""
    if language and language.strip().lower() in LANGUAGES:
        return LANGUAGES[language.strip().lower()]
    if active_path:
        return EXTENSIONS.get(PurePosixPath(active_path.strip()).suffix.lower())
    return None


def context_priority(
    tags: list[str], types: list[str], *, language: str | None, context: str | None
) -> ContextPriority:
    """The boost profile of a request; unknown type names raise BadRequest (parse_type)."""
    wanted_tags = [t.lower() for t in tags]
    wanted_types = [parse_type(t).value for t in types]
    if language:
        wanted_tags += [language, f"{language}-style", f"{language}:style", "coding-style"]
        wanted_types += STYLE_TYPES
    if context:
        wanted_tags.append(context.strip().lower())
    return ContextPriority(tuple(dict.fromkeys(wanted_tags)), tuple(dict.fromkeys(wanted_types)))
