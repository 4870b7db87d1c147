"""Applying a game-view patch (``game_patch`` in a delta), as the client needs it.

The patch's shape (every part optional)::

    {"set": {key: value, ...}, "del": [key, ...],
     "view": {"set": {key: value, ...}, "del": [key, ...]}}

``set``/``del`` replace and drop top-level keys of the game view; ``view`` does the same inside
the view's ``view``. Values are replaced whole, never merged. The server makes patches with
``server.game.patch.diff``; ``applyGamePatch`` in web/src applies them the same way.
"""

from __future__ import annotations

from typing import Any

Patch = dict[str, Any]


def _apply_level(base: dict[str, Any], part: Patch) -> dict[str, Any]:
    out = dict(base)
    for key in part.get("del", ()):
        out.pop(key, None)
    out.update(part.get("set", {}))
    return out


def apply_patch(base: dict[str, Any], patch: Patch) -> dict[str, Any]:
    """``base`` with ``patch`` applied (a new dict; ``base`` is left as it was)."""
    out = _apply_level(base, patch)
    inner = patch.get("view")
    if inner is not None:
        view = out.get("view")
        out["view"] = _apply_level(view if isinstance(view, dict) else {}, inner)
    return out
