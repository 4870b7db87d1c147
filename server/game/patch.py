"""The game view sent as a patch: what changed since the view the same seat got last.

A delta carries either the whole game view (``game``) or ``game_patch``: a two-level patch
against the view that seat received at the previous version. Its shape (every part optional)::

    {"set": {key: value, ...}, "del": [key, ...],
     "view": {"set": {key: value, ...}, "del": [key, ...]}}

``set``/``del`` replace and drop top-level keys of the game view; ``view`` does the same inside
the view's ``view`` (the engine's own view), when it is an object both before and after (else a
changed ``view`` is replaced whole through ``set``). Values are replaced whole, never merged.
:func:`apply_patch` (in :mod:`cardtable_client.patch`, the client's package, which needs no
server module) and ``applyGamePatch`` in web/src/core/gamepatch.ts apply it the same way.
"""

from __future__ import annotations

from typing import Any

Patch = dict[str, Any]


def _level(old: dict[str, Any], new: dict[str, Any], skip: str | None) -> Patch:
    out: Patch = {}
    changed = {k: v for k, v in new.items() if k != skip and (k not in old or old[k] != v)}
    if changed:
        out["set"] = changed
    gone = [k for k in old if k not in new]
    if gone:
        out["del"] = gone
    return out


def diff(old: dict[str, Any], new: dict[str, Any]) -> Patch:
    """The patch that turns ``old`` into ``new`` (``{}``: they are equal)."""
    inner_old, inner_new = old.get("view"), new.get("view")
    nested = isinstance(inner_old, dict) and isinstance(inner_new, dict)
    out = _level(old, new, "view" if nested else None)
    if nested:
        inner = _level(inner_old, inner_new, None)  # type: ignore[arg-type]
        if inner:
            out["view"] = inner
    return out
