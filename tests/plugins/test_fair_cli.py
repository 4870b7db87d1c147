"""``cardtable verify``: a fair record says so and exits 0; a tampered one lists its problems and
exits 1; a file that is not JSON exits 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from plugins import fair
from plugins.spades.rules import ENGINE as SPADES
from server.__main__ import main

SEED = bytes(range(1, 33))
VALUES: list[str | None] = ["ab" * 16, None, "cd" * 16, None]


def spades_record() -> dict[str, Any]:
    key = fair.deal_key(SEED, "ABCD", 3, VALUES)
    part = SPADES.deal_record(SPADES.new_game(4, {}, 1, deal_key=key))
    assert part is not None
    return {
        "version": 1,
        "room": "ABCD",
        "game": "spades",
        "players": [{"seat": p, "name": n, "computer": p % 2 == 1} for p, n in enumerate("ABCD")],
        "commitment": fair.commitment(SEED, "ABCD", 3),
        "seed": SEED.hex(),
        "values": VALUES,
        **part,
        "deal": 3,
    }


def run(tmp_path: Path, data: object, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(data))
    status = main(["verify", str(path)])
    return status, capsys.readouterr().out


def test_a_fair_deal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run(tmp_path, spades_record(), capsys)
    assert status == 0
    assert out == (
        "Deal 3 of room ABCD (spades): fair — the seed matches its commitment and every card "
        "is where the seed puts it.\n"
    )


def test_a_changed_card_and_a_changed_seed_byte(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    card = spades_record()
    card["order"] = [card["order"][3], *card["order"][1:3], card["order"][0], *card["order"][4:]]
    seed = spades_record()
    seed["seed"] = "00" + seed["seed"][2:]
    status, out = run(tmp_path, [spades_record(), card, seed], capsys)
    assert status == 1
    lines = out.splitlines()
    assert lines[0].endswith(
        "fair — the seed matches its commitment and every card is where the seed puts it."
    )
    assert lines[1] == "Deal 3 of room ABCD (spades): NOT verified —"
    assert lines[2] == "  - 2 card(s) (positions 0, 3) are not where the seed puts them."
    assert lines[3] == "Deal 3 of room ABCD (spades): NOT verified —"
    assert "does not match the commitment" in lines[4]


def test_not_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "record.json"
    path.write_text("{not json")
    assert main(["verify", str(path)]) == 2
    assert "cannot read a JSON record" in capsys.readouterr().out
