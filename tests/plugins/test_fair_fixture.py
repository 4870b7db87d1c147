"""web/test/fixtures/fair_cases.json: deal records, good and tampered, with the Python verdicts,
and known-answer vectors; web/test/fair.test.mjs checks the TypeScript verifier agrees on every
one. The file must hold what this module emits now (regenerate it with
``.venv/bin/python -m tests.plugins.test_fair_fixture``, then let Biome lay it out)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from plugins import fair
from plugins.gin_rummy.rules import ENGINE as GIN
from plugins.pennies.rules import ENGINE as PENNIES
from plugins.rummy.rules import ENGINE as RUMMY
from plugins.spades.rules import ENGINE as SPADES

FIXTURE = Path(__file__).parents[2] / "web" / "test" / "fixtures" / "fair_cases.json"
SEED = bytes.fromhex("5eed" * 16)
PENNIES_2 = [*(f"{s}{r}" for s in "CDHS" for r in range(1, 14))] * 2 + ["J1", "J2"] * 2


def base(game: str, n: int, deal: int, part: dict[str, Any], room: str = "QRST") -> dict[str, Any]:
    values = [f"{7 * p + 1:02x}" * 16 if p != 1 else None for p in range(n)]
    if "order" not in part:
        engine = {"spades": SPADES, "gin_rummy": GIN, "rummy": RUMMY, "pennies": PENNIES}[game]
        key = fair.deal_key(SEED, room, deal, values)
        part = engine.deal_record(engine.new_game(n, {}, 3, deal_key=key))
    return {
        "version": 1,
        "room": room,
        "game": game,
        "players": [{"seat": p, "name": f"P{p}", "computer": p == 1} for p in range(n)],
        "commitment": fair.commitment(SEED, room, deal),
        "seed": SEED.hex(),
        "values": values,
        **part,
        "deal": deal,
    }


def free_play() -> dict[str, Any]:
    """A free-play shuffle: the deal of a room's deck to its pile (the other engineer's case)."""
    values = ["0f" * 16, None, None]
    deck = [f"{s}{r}" for s in "CDHS" for r in range(1, 14)] + ["J1", "J2"]
    order = fair.shuffle(deck, fair.deal_key(SEED, "FREE", 7, values))
    return {
        "version": 1,
        "room": "FREE",
        "game": "free",
        "deal": 7,
        "players": [{"seat": p, "name": f"P{p}", "computer": False} for p in range(3)],
        "commitment": fair.commitment(SEED, "FREE", 7),
        "seed": SEED.hex(),
        "values": values,
        "deck": deck,
        "order": order,
        "dealt": ["pile"] * len(order),
    }


def tampered(name: str, record: dict[str, Any], **changes: Any) -> tuple[str, dict[str, Any]]:
    return name, {**record, **changes}


def reshuffled(name: str, record: dict[str, Any], deck: list[Any]) -> tuple[str, dict[str, Any]]:
    """A server's lie the shuffle check alone misses: another deck, shuffled with the real key
    (the order is the seed's shuffle of it), dealt as far as it goes."""
    key = fair.deal_key(SEED, record["room"], record["deal"], record["values"])
    order = fair.shuffle(deck, key)
    return name, {**record, "deck": deck, "order": order, "dealt": record["dealt"][: len(deck)]}


def cases() -> list[dict[str, Any]]:
    spades = base("spades", 4, 1, {})
    gin = base("gin_rummy", 2, 2, {})
    order = spades["order"]
    seed = bytearray(SEED)
    seed[31] ^= 0x01
    dealt = list(gin["dealt"])
    dealt[0], dealt[1] = dealt[1], dealt[0]
    named = [
        ("spades", spades),
        ("gin_rummy", gin),
        ("rummy with 3", base("rummy", 3, 4, {})),
        ("pennies with 2", base("pennies", 2, 1, {})),
        ("free play", free_play()),
        tampered("two cards swapped", spades, order=[order[1], order[0], *order[2:]]),
        tampered("a card replaced", spades, order=["J1", *order[1:]]),
        tampered("one seed byte changed", spades, seed=seed.hex()),
        tampered("a player's value changed", spades, values=[None, *spades["values"][1:]]),
        tampered("another commitment", spades, commitment="ab" * 32),
        tampered("another room", spades, room="QRSU"),
        tampered("the seed not revealed", spades, seed=None),
        tampered("two hands swapped a card", gin, dealt=dealt),
        tampered("a card's place missing", gin, dealt=gin["dealt"][:-1]),
        tampered("version 2", spades, version=2),
        tampered("a bad value", spades, values=["ABC", None, None, None]),
        tampered("uppercase seed", spades, seed=SEED.hex().upper()),
        reshuffled("an empty deal", spades, []),
        reshuffled("a card missing", spades, spades["deck"][:-1]),
        reshuffled("a card twice", spades, [*spades["deck"][:-1], spades["deck"][0]]),
        reshuffled("pennies with 3 dealt a 2-player deck", base("pennies", 3, 1, {}), PENNIES_2),
        reshuffled("an empty free-play shuffle", free_play(), []),
    ]
    out = []
    for name, record in named:
        verdict = fair.verify(record)
        out.append({"name": name, "record": record, "ok": verdict.ok, "problems": verdict.problems})
    return out


def vectors() -> dict[str, Any]:
    key = fair.deal_key(SEED, "QRST", 1, ["01" * 16, None])
    words = fair.stream(key, "reshuffle:2")
    return {
        "seed": SEED.hex(),
        "commitment": fair.commitment(SEED, "QRST", 1),
        "deal_key": key.hex(),
        "stream_reshuffle_2": [next(words) for _ in range(20)],
        "shuffle_30": fair.shuffle(list(range(30)), key, "deal"),
    }


def emitted() -> str:
    return json.dumps({"vectors": vectors(), "cases": cases()}, indent=1) + "\n"


def test_the_fixture_is_what_python_emits() -> None:
    """Compared as data: Biome lays the committed file out (``npm run format``)."""
    assert json.loads(FIXTURE.read_text()) == json.loads(emitted()), (
        "regenerate it: .venv/bin/python -m tests.plugins.test_fair_fixture && "
        "cd web && npx biome format --write test/fixtures/fair_cases.json"
    )


def test_the_cases_cover_both_verdicts() -> None:
    verdicts = [case["ok"] for case in cases()]
    assert verdicts.count(True) == 5 and verdicts.count(False) == len(verdicts) - 5


if __name__ == "__main__":
    FIXTURE.write_text(emitted())
