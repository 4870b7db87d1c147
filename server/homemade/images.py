"""Uploaded images of homemade games: what is accepted, sniffed from the bytes themselves.

Only PNG, JPEG and WebP are accepted, recognised by their magic bytes (never by a file name or
a Content-Type), at most :data:`MAX_IMAGE_BYTES` each. SVG is refused by name: it can carry
scripts. An image is stored content-addressed (its sha256) with its room; see
:mod:`server.homemade.service` for the HTTP side and
:class:`server.store.redis_store.RedisStore` for the keys.
"""

from __future__ import annotations

import hashlib

from server.errors import BAD_REQUEST, LIMIT, CardtableError

MAX_IMAGE_BYTES = 2 * 1024 * 1024
MAX_IMAGES_PER_ROOM = 64
UPLOADS_PER_MINUTE = 30  # per room

PNG, JPEG, WEBP = "image/png", "image/jpeg", "image/webp"


def sniff(data: bytes) -> str:
    """The Content-Type ``data`` really is, or ``bad_request`` naming what it is not."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return PNG
    if data.startswith(b"\xff\xd8\xff"):
        return JPEG
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return WEBP
    head = data[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if head.startswith(b"<") and (b"<svg" in head or head.startswith(b"<?xml")):
        raise CardtableError(
            BAD_REQUEST,
            "SVG images are not accepted (they can carry scripts): use PNG, JPEG or WebP.",
        )
    raise CardtableError(
        BAD_REQUEST, "That is not a PNG, JPEG or WebP image (judged by its content, not its name)."
    )


def check_image(data: bytes) -> tuple[str, str]:
    """(sha256 hex, content type) of an acceptable image, else a clear error."""
    if not data:
        raise CardtableError(BAD_REQUEST, "The image is empty.")
    if len(data) > MAX_IMAGE_BYTES:
        raise CardtableError(
            LIMIT,
            f"An image may be at most {MAX_IMAGE_BYTES // (1024 * 1024)}"
            f" MB; this one is {len(data) / (1024 * 1024):.1f} MB.",
        )
    kind = sniff(data)
    return hashlib.sha256(data).hexdigest(), kind
