"""Writes README's table of settings from the Config fields (``make generate``): the flags,
their environment variables and defaults are written once, in server/config.py."""

from __future__ import annotations

import sys
from pathlib import Path

from server.config import ROOT, settings_table

BEGIN = "<!-- settings: generated from server/config.py by `make generate`; do not edit -->\n"
END = "<!-- /settings -->\n"


def with_table(readme: str) -> str:
    """``readme`` with the text between the markers replaced by the current table."""
    head, rest = readme.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + BEGIN + settings_table() + END + tail


def main(argv: list[str] | None = None) -> int:
    path = Path(argv[0]) if argv else ROOT / "README.md"
    text = path.read_text(encoding="utf-8")
    new = with_table(text)
    if new != text:
        path.write_text(new, encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
