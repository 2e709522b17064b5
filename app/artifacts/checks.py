"""What an uploaded artifact may be: its media type (an allow-list, with a cheap check of the
bytes against it) and a safe filename."""

import codecs
import mimetypes
import unicodedata
from collections.abc import Iterable, Iterator

from app.errors import BadRequest, UnsupportedMediaType
from app.validation import media_type_essence

ALLOWED_TYPES = (
    "application/json",
    "application/pdf",
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "application/octet-stream",
)
BINARY = "application/octet-stream"
MAX_FILENAME = 200  # characters; room left under the usual 255-byte limit of a file system
MAX_TYPE = 100
# How each binary type starts (its "magic"); a file that does not is refused as mislabelled.
SIGNATURES: dict[str, tuple[bytes, ...]] = {
    "application/pdf": (b"%PDF-",),
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
}


def is_text(content_type: str) -> bool:
    """Text artifacts (UTF-8) are read in pages of characters; the others whole."""
    return content_type.startswith("text/") or content_type == "application/json"


def allowed(content_type: str) -> bool:
    return content_type in ALLOWED_TYPES or (
        content_type.startswith("text/") and len(content_type) > len("text/")
    )


def media_type(declared: str | None, filename: str, *, text: bool) -> str:
    """The artifact's type: the declared one (parameters such as charset dropped), else a guess
    from the filename, else text/plain for text content and octet-stream for bytes.

    A declared value that is not a media type is refused (400); a declared type off the
    allow-list too (415); a guessed one off it becomes octet-stream."""
    if declared and declared.strip(" "):
        value = media_type_essence(declared)
        if value is None:
            raise BadRequest(
                f"Invalid content_type {declared[:MAX_TYPE]!r}: a media type is type/subtype "
                "(letters, digits and !#$&^_.+-), optionally followed by '; name=value' "
                "parameters, with no control characters"
            )
        if len(value) > MAX_TYPE or not allowed(value):
            kinds = "text/*, " + ", ".join(ALLOWED_TYPES)
            raise UnsupportedMediaType(
                f"Artifact content_type {value[:MAX_TYPE]!r} is not accepted; allowed: {kinds}"
            )
        return value
    guessed, _ = mimetypes.guess_type(filename, strict=False)
    if guessed and allowed(guessed):
        return guessed
    return "text/plain" if text else BINARY


def safe_filename(name: str | None) -> str:
    """The name without any directory part, control or format characters, or leading dots;
    at most MAX_FILENAME characters (the extension kept); "artifact" if nothing is left."""
    base = unicodedata.normalize("NFC", name or "").replace("\\", "/").rsplit("/", 1)[-1]
    kept = "".join(c for c in base if unicodedata.category(c) not in ("Cc", "Cf", "Zl", "Zp"))
    kept = kept.strip().lstrip(".").strip()
    if len(kept) > MAX_FILENAME:
        stem, dot, extension = kept.rpartition(".")
        if dot and 0 < len(extension) <= 16:
            kept = stem[: MAX_FILENAME - len(extension) - 1] + "." + extension
        else:
            kept = kept[:MAX_FILENAME]
    return kept or "artifact"


def checked(blocks: Iterable[bytes], content_type: str) -> Iterator[bytes]:
    """The blocks as given, refusing (BadRequest) content that is plainly not `content_type`:
    text that is not UTF-8 or holds NUL bytes, a PDF or image without its signature."""
    if is_text(content_type):
        yield from _utf8(blocks, content_type)
    elif content_type in SIGNATURES or content_type == "image/webp":
        yield from _signed(blocks, content_type)
    else:
        yield from blocks


def _utf8(blocks: Iterable[bytes], content_type: str) -> Iterator[bytes]:
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        for block in blocks:
            if b"\x00" in block:
                raise BadRequest(f"Artifact content is not {content_type}: it holds NUL bytes")
            decoder.decode(block)
            yield block
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        raise BadRequest(
            f"Artifact content is not {content_type}: text must be UTF-8 "
            "(send other bytes as application/octet-stream)"
        ) from None


def _signed(blocks: Iterable[bytes], content_type: str) -> Iterator[bytes]:
    head = b""
    pending: list[bytes] = []
    for block in blocks:
        if len(head) < 16:
            head += block[:16]
            pending.append(block)
            if len(head) < 16:
                continue
            _check_signature(head, content_type)
            yield from pending
            pending = []
        else:
            yield block
    if pending or not head:
        _check_signature(head, content_type)
        yield from pending


def _check_signature(head: bytes, content_type: str) -> None:
    if content_type == "image/webp":
        ok = head[:4] == b"RIFF" and head[8:12] == b"WEBP"
    else:
        ok = head.startswith(SIGNATURES[content_type])
    if not ok:
        raise BadRequest(
            f"Artifact content is not {content_type}: it does not start as one does "
            "(send it with its real type, or as application/octet-stream)"
        )
