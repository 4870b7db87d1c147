"""Room codes: short, case-insensitive, easy to read aloud.

Eight characters from a 31-letter alphabet with no 0/O, 1/I/L (about 2^39.6 codes), shown as
``ABCD-EFGH``. With the join rate limit (documented in docs/protocol.md) guessing a live code
is impractical. Input is forgiving: case, spaces and dashes are ignored.
"""

from __future__ import annotations

import re
import secrets

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
LENGTH = 8
_CLEAN = re.compile(r"[\s\-_]")
_VALID = re.compile(f"^[{ALPHABET}]{{{LENGTH}}}$")


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def normalize(raw: object) -> str | None:
    """The canonical code for user input, or None if it cannot be a code."""
    if not isinstance(raw, str) or len(raw) > 40:
        return None
    code = _CLEAN.sub("", raw).upper()
    return code if _VALID.match(code) else None


def pretty(code: str) -> str:
    return f"{code[:4]}-{code[4:]}"
