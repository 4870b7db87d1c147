"""The JSON codec handed to python-socketio, hardened against hostile frames.

A frame that is not valid JSON, or nests deeply enough to exhaust the parser's recursion, would
otherwise raise inside the library and be dropped without a word. Here it decodes to the event
``MALFORMED`` instead, which the socket layer answers with an ``error`` event.
"""

from __future__ import annotations

import json
from typing import Any

MALFORMED = "__malformed__"
JSONDecodeError = json.JSONDecodeError


def dumps(obj: Any, **kwargs: Any) -> str:
    kwargs.setdefault("separators", (",", ":"))
    return json.dumps(obj, **kwargs)


def loads(s: str | bytes, **kwargs: Any) -> Any:
    try:
        return json.loads(s, **kwargs)
    except (ValueError, RecursionError):
        return [MALFORMED, None]
