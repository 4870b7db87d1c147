"""The Pennies binding turns a drop of selected cards on "New meld" into a meld action: it
names a set's rank only when the set could stand for two ranks (checklist item 6, see the
binding's docstring), and otherwise leaves the rank to the engine."""

from __future__ import annotations

from typing import Any

import pytest

from plugins.base import Drop
from plugins.pennies.binding import BINDING, NEW_MELD, split_sets
from plugins.pennies.chart import default_chart
from plugins.pennies.rules import PenniesState
from tests.plugins.test_pennies_rules import ROUND5_WILD, deal, ok

# Round 1 as the default chart's round 5 would play it (2s and aces wild), opening with one set.
CHART = [{"first_meld": [3], "wild": ["joker", "2", "ace"]}, *default_chart()[1:]]


def ready(hand: list[str]) -> PenniesState:
    """Ana holds ``hand``, has declined and drawn; Ben passed on the upcard."""
    state = deal(2, [hand], "H13", ["S9"], options={"chart": CHART})
    return ok(ok(state, 0, {"type": "decline"}), 1, {"type": "pass"})


def dropped(state: PenniesState, cards: list[str]) -> dict[str, Any]:
    action = BINDING.interpret(state, Drop(0, tuple(cards), "hand", NEW_MELD))
    assert isinstance(action, dict) and action["type"] == "meld"
    return action


@pytest.mark.parametrize(
    ("cards", "sets"),
    [
        (["H2", "S1", "J1"], [{"cards": ["H2", "J1", "S1"], "rank": 2}]),  # either: 2s
        (["H1", "S1", "H2", "J1"], [{"cards": ["H1", "S1", "J1", "H2"], "rank": 1}]),
        (["H2", "H2", "S1"], [{"cards": ["H2", "H2", "S1"]}]),  # only aces work: no rank
        (["H9", "S9", "C2"], [{"cards": ["H9", "S9", "C2"]}]),
    ],
)
def test_the_rank_is_named_only_when_two_ranks_fit(cards: list[str], sets: list[Any]) -> None:
    assert split_sets(cards, ROUND5_WILD, []) == sets


def test_an_ambiguous_drop_becomes_a_set_of_the_rank_named() -> None:
    state = ready(["H2", "S1", "J1", "H9"])
    action = dropped(state, ["H2", "S1", "J1"])
    assert action["melds"][0]["rank"] == 2
    after = ok(state, 0, action)
    assert after.melds[0][0].rank == 2


def test_a_drop_only_one_rank_fits_is_left_to_the_engine() -> None:
    # Two 2 of hearts can't both be naturals in a set of 2s; as aces they are two wild cards.
    state = ready(["H2", "H2", "S1", "H9"])
    action = dropped(state, ["H2", "H2", "S1"])
    assert "rank" not in action["melds"][0]
    after = ok(state, 0, action)
    assert after.melds[0][0].rank == 1
