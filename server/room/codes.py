"""Room codes: case-insensitive, easy to read aloud, too many to guess.

New rooms get ten characters from a 31-letter alphabet with no 0/O, 1/I/L (about 2^49.5 codes),
shown as ``ABCDE-FGHJK``. Rooms made before the change keep their eight-character codes
(``ABCD-EFGH``), so both lengths are accepted. Why ten, and the miss limits that go with it:
docs/architecture.md, "Guessing room codes". Input is forgiving: case, spaces, dashes and
underscores are ignored.
"""

from __future__ import annotations

import re
import secrets

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
LENGTH = 10
LEGACY_LENGTH = 8  # codes of rooms created before codes grew to LENGTH
_CLEAN = re.compile(r"[\s\-_]")
_VALID = re.compile(f"^(?:[{ALPHABET}]{{{LENGTH}}}|[{ALPHABET}]{{{LEGACY_LENGTH}}})$")


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def normalize(raw: object) -> str | None:
    """The canonical code for user input, or None if it cannot be a code."""
    if not isinstance(raw, str) or len(raw) > 40:
        return None
    code = _CLEAN.sub("", raw).upper()
    return code if _VALID.match(code) else None


def pretty(code: str) -> str:
    """The code in two groups: ``ABCDE-FGHJK`` (or ``ABCD-EFGH`` for an older room)."""
    half = (len(code) + 1) // 2
    return f"{code[:half]}-{code[half:]}"
