"""``cardtable verify RECORD.json``: checks provably fair deal records and prints a verdict.

The file holds one deal record (docs/fairness.md, "The record") or a list of them (a hand
history download). Every registered game's dealing is loaded first, so ``dealt`` is checked
against the game's own deal too. Exit status 0 when every deal is fair, 1 when any is not, 2 when
the file cannot be read as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from plugins import fair, registry


def verdict_text(record: Mapping[str, Any] | object, verdict: fair.Verdict) -> str:
    """The verdict in words: "Deal 3 of room ABCD: fair — ..." or the list of problems."""
    if isinstance(record, Mapping):
        deal, room = record.get("deal", "?"), record.get("room", "?")
        game = record.get("game")
        where = f"Deal {deal} of room {room}" + (f" ({game})" if game else "")
    else:
        where = "This record"
    if verdict.ok:
        return (
            f"{where}: fair — the seed matches its commitment and every card is where the "
            "seed puts it."
        )
    lines = [f"{where}: NOT verified —"]
    lines += [f"  - {problem}" for problem in verdict.problems]
    return "\n".join(lines)


def check(records: Sequence[object], out: TextIO) -> int:
    """Verify each record, print each verdict; 0 if all are fair, else 1."""
    games = registry.GAMES  # loading the games registers their dealing with plugins.fair
    status = 0
    for record in records:
        verdict = (
            fair.verify(record)
            if isinstance(record, Mapping)
            else fair.Verdict(False, ["The record is not a JSON object."])
        )
        print(verdict_text(record, verdict), file=out)
        game = record.get("game") if isinstance(record, Mapping) else None
        if verdict.ok and game not in games and game != "free":
            print(f"  (no game {game!r} here: where the cards went was not checked)", file=out)
        status = status or (0 if verdict.ok else 1)
    if not records:
        print("The file holds no deal record.", file=out)
        return 1
    return status


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """The command: ``cardtable verify RECORD.json [RECORD.json ...]``."""
    parser = argparse.ArgumentParser(
        prog="cardtable verify",
        description="Check provably fair deal records (docs/fairness.md): the revealed seed "
        "matches its commitment and every card is where the seed puts it.",
    )
    parser.add_argument("files", nargs="+", metavar="RECORD.json", help="a record or a list")
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    out = out or sys.stdout
    records: list[object] = []
    for name in args.files:
        try:
            with open(name, encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError) as exc:
            print(f"{name}: cannot read a JSON record: {exc}", file=out)
            return 2
        records.extend(data if isinstance(data, list) else [data])
    return check(records, out)
