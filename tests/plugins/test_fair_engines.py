"""The four engines' fair-deal hooks (plugins/base.py FairDeals): a keyed deal is
``fair.shuffle(canonical deck, key)`` dealt the game's way, ``deal_record`` verifies and matches
the hands the engine really dealt, ``deal_with`` keys the next deal only, reshuffles use
``reshuffle:<i>``, and the keys survive dump/load without reaching any view."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from msgspec.structs import replace

from plugins import fair, registry
from plugins.base import InvalidState, Rejection, fair_deals
from plugins.gin_rummy.rules import ENGINE as GIN
from plugins.pennies.rules import ENGINE as PENNIES
from plugins.rummy.rules import ENGINE as RUMMY
from plugins.simulate import drive
from plugins.spades.rules import ENGINE as SPADES

SEED = bytes(range(100, 132))
ROOM = "WXYZ"
GAMES: list[tuple[str, Any, int]] = [
    ("spades", SPADES, 4),
    ("gin_rummy", GIN, 2),
    ("rummy", RUMMY, 2),
    ("rummy", RUMMY, 3),
    ("pennies", PENNIES, 2),
    ("pennies", PENNIES, 4),
]
IDS = [f"{name}-{n}" for name, _, n in GAMES]


def values(n: int) -> list[str | None]:
    return [f"{p:02x}" * 16 if p % 2 == 0 else None for p in range(n)]


def key_for(deal: int, n: int) -> bytes:
    return fair.deal_key(SEED, ROOM, deal, values(n))


def full_record(game: str, n: int, part: dict[str, Any]) -> dict[str, Any]:
    return {
        "version": 1,
        "room": ROOM,
        "game": game,
        "players": [{"seat": p, "name": f"P{p}", "computer": p % 2 == 1} for p in range(n)],
        "commitment": fair.commitment(SEED, ROOM, part["deal"]),
        "seed": SEED.hex(),
        "values": values(n),
        **part,
    }


def where(state: Any) -> dict[str, Counter[str]]:
    """Every card the engine holds right after a deal, by hand, discard and stock."""
    out = {str(p): Counter(h) for p, h in enumerate(state.hands)}
    out["discard"] = Counter(getattr(state, "discard", ()))
    out["stock"] = Counter(getattr(state, "stock", ()))
    return out


@pytest.mark.parametrize(("game", "engine", "n"), GAMES, ids=IDS)
def test_a_keyed_first_deal_verifies_and_is_what_was_dealt(game: str, engine: Any, n: int) -> None:
    assert fair_deals(engine) is engine
    state = engine.new_game(n, {}, 5, deal_key=key_for(1, n))
    part = engine.deal_record(state)
    assert part is not None and part["deal"] == 1 and part["dealer"] == state.dealer
    assert part["order"] == fair.shuffle(part["deck"], key_for(1, n))
    record = full_record(game, n, part)
    assert fair.verify(record) == fair.Verdict(True, [])
    dealt: dict[str, Counter[str]] = {place: Counter() for place in where(state)}
    for card, place in zip(part["order"], part["dealt"], strict=True):
        dealt[place][card] += 1
    assert dealt == where(state)
    # The upcard and the top of the stock are the cards the deal puts there.
    if "discard" in part["dealt"]:
        assert state.discard[-1] == part["order"][part["dealt"].index("discard")]
    assert state.deal_key is None and state.fair_key == key_for(1, n).hex()


@pytest.mark.parametrize(("game", "engine", "n"), GAMES, ids=IDS)
def test_the_key_changes_the_deal_and_no_key_deals_from_the_seed(
    game: str, engine: Any, n: int
) -> None:
    seeded = engine.new_game(n, {}, 5)
    assert engine.deal_record(seeded) is None and seeded.fair_key is None
    assert engine.dump(engine.new_game(n, {}, 5, deal_key=None)) == engine.dump(seeded)
    one = engine.new_game(n, {}, 5, deal_key=key_for(1, n))
    other = engine.new_game(n, {}, 5, deal_key=key_for(2, n))
    assert one.hands != seeded.hands and one.hands != other.hands


@pytest.mark.parametrize(("game", "engine", "n"), GAMES, ids=IDS)
def test_tampering_with_a_record_fails(game: str, engine: Any, n: int) -> None:
    part = engine.deal_record(engine.new_game(n, {}, 5, deal_key=key_for(1, n)))
    record = full_record(game, n, part)
    swapped = dict(record, order=[record["order"][1], record["order"][0], *record["order"][2:]])
    assert Counter(swapped["order"]) == Counter(record["order"])
    if swapped["order"] != record["order"]:  # two equal cards (Pennies) swap to the same deal
        assert not fair.verify(swapped).ok
    moved = list(record["dealt"])
    moved[0], moved[-1] = moved[-1], moved[0]
    verdict = fair.verify(dict(record, dealt=moved))
    assert not verdict.ok and "not dealt where the game deals them" in verdict.problems[-1]
    seed = bytearray(SEED)
    seed[7] ^= 0x80
    assert not fair.verify(dict(record, seed=seed.hex())).ok


NEXT = {"next_deal", "next_hand", "next_round"}


def deal_over(engine: Any, state: Any) -> bool:
    return any(
        a["type"] in NEXT for p in engine.to_act(state) for a in engine.legal_actions(state, p)
    )


def play_deal(engine: Any, state: Any, bot: Any) -> Any:
    """The engine's own bots play the current deal to its end (the next deal not yet dealt)."""
    rngs = [random.Random(p) for p in range(len(state.hands))]
    played = drive(engine, state, [bot] * len(rngs), rngs, stop=lambda s: deal_over(engine, s))
    assert played.failure is None and deal_over(engine, played.state)
    return played.state


def deal_on(engine: Any, state: Any) -> Any:
    player = engine.to_act(state)[0]
    action = next(a for a in engine.legal_actions(state, player) if a["type"] in NEXT)
    after = engine.apply(state, player, action)
    assert not isinstance(after, Rejection)
    return after


@pytest.mark.parametrize(("game", "engine", "n"), GAMES, ids=IDS)
def test_deal_with_keys_the_next_deal_only(game: str, engine: Any, n: int) -> None:
    bot = registry.get(game).bot
    state = play_deal(engine, engine.new_game(n, {}, 5, deal_key=key_for(1, n)), bot)
    keyed = engine.deal_with(state, key_for(2, n))
    assert keyed.deal_key == key_for(2, n).hex()
    assert engine.view(keyed, 0) == engine.view(state, 0)  # no view shows a key
    second = deal_on(engine, keyed)
    part = engine.deal_record(second)
    assert part is not None and part["deal"] == 2 and second.deal_key is None
    assert fair.verify(full_record(game, n, part)).ok
    assert key_for(2, n).hex() not in repr(engine.view(second, 0))
    third = deal_on(engine, play_deal(engine, second, bot))
    assert engine.deal_record(third) is None and third.fair_key is None


@pytest.mark.parametrize(("game", "engine", "n"), GAMES, ids=IDS)
def test_keys_survive_dump_and_load(game: str, engine: Any, n: int) -> None:
    state = engine.deal_with(engine.new_game(n, {}, 5, deal_key=key_for(1, n)), key_for(2, n))
    data = engine.dump(state)
    assert isinstance(data["deal_key"], str) and isinstance(data["fair_key"], str)
    assert engine.load(data) == state
    with pytest.raises(InvalidState):
        engine.load(dict(data, fair_key="XYZ"))


def test_rummy_reshuffles_with_the_deal_key() -> None:
    key = key_for(1, 2)
    state = RUMMY.new_game(2, {}, 5, deal_key=key)
    pile = (*state.stock[:10], *state.discard)
    after = RUMMY._stock_check(replace(state, stock=(), discard=pile))
    assert after.reshuffles == 1 and after.discard == pile[-1:]
    assert list(after.stock) == fair.shuffle(list(pile[:-1]), key, "reshuffle:1")
    seeded = RUMMY.new_game(2, {}, 5)
    assert RUMMY._stock_check(replace(seeded, stock=(), discard=pile)).stock != after.stock


def test_pennies_reshuffles_with_the_deal_key_counting_from_one() -> None:
    key = key_for(1, 2)
    state = PENNIES.new_game(2, {}, 5, deal_key=key)
    pile = state.stock[:12]
    for i in (1, 2):
        short = replace(state, stock=state.stock[12:13], discard=pile, reshuffles=i - 1)
        drawn, after, reshuffled = PENNIES._draw(short, 3)
        extra = fair.shuffle(list(pile[:-1]), key, f"reshuffle:{i}")
        assert reshuffled and after.reshuffles == i
        assert list(drawn) == [state.stock[12], *extra[:2]]
        assert list(after.stock) == extra[2:]
