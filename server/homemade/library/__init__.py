"""The built-in library: game files shipped with the server (``server/homemade/library/*.json``).

Each file is an ordinary game file (docs/game-file.md) whose ``title`` and ``description`` the
home page lists; ``POST /api/rooms {"library": name}`` makes a room from one.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from server.errors import BAD_REQUEST, CardtableError

HERE = Path(__file__).parent
ORDER = ("blank", "standard", "poker", "gin-rummy", "spades", "rummy", "pennies")


@cache
def _read(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((HERE / f"{name}.json").read_text(encoding="utf-8"))
    return data


def names() -> list[str]:
    found = {p.stem for p in HERE.glob("*.json")}
    return [n for n in ORDER if n in found] + sorted(found - set(ORDER))


def entry(name: object) -> dict[str, Any]:
    """A library game file by name (a fresh copy), or ``bad_request`` listing the names."""
    if not isinstance(name, str) or name not in names():
        raise CardtableError(
            BAD_REQUEST, f"Unknown library game {name!r}; the library has {', '.join(names())}."
        )
    fresh: dict[str, Any] = json.loads(json.dumps(_read(name)))
    return fresh


def listing() -> list[dict[str, str]]:
    return [
        {
            "name": n,
            "title": _read(n).get("title", n),
            "description": _read(n).get("description", ""),
        }
        for n in names()
    ]
