"""The Pennies binding turns a drop of selected cards on "New meld" into a meld action. It never
names a set's rank: a set that could stand for two ranks is the player's to name (rule 6, the
page's ``rank_chooser`` asks), so such a drop is refused with ``rank_needed``. Before the first
meld, a drop is split for what the round's requirement still needs this turn."""

from __future__ import annotations

from typing import Any

import pytest

from plugins.base import Drop, Rejection
from plugins.pennies.binding import BINDING, NEW_MELD, split_sets
from plugins.pennies.chart import default_chart
from plugins.pennies.rules import ENGINE, PenniesState
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
        (["H2", "S1", "J1"], [{"cards": ["H2", "J1", "S1"]}]),  # either: the player names it
        (["H1", "S1", "H2", "J1"], [{"cards": ["H1", "S1", "J1", "H2"]}]),
        (["H2", "H2", "S1"], [{"cards": ["H2", "H2", "S1"]}]),  # only aces work
        (["H9", "S9", "C2"], [{"cards": ["H9", "S9", "C2"]}]),
    ],
)
def test_the_binding_never_names_the_rank(cards: list[str], sets: list[Any]) -> None:
    assert split_sets(cards, ROUND5_WILD, []) == sets


def test_an_ambiguous_drop_is_the_players_to_name() -> None:
    state = ready(["H2", "S1", "J1", "H9"])
    action = dropped(state, ["H2", "S1", "J1"])
    assert "rank" not in action["melds"][0]  # was: the binding picked 2s
    refused = ENGINE.apply(state, 0, action)
    assert isinstance(refused, Rejection) and refused.code == "rank_needed"
    assert "rank_chooser" in BINDING.widgets  # the page asks, then sends the named rank
    for named in (1, 2):
        after = ok(
            state, 0, {"type": "meld", "melds": [{"cards": ["H2", "S1", "J1"], "rank": named}]}
        )
        assert after.melds[0][0].rank == named


def test_an_ambiguous_set_among_others_is_refused_with_how_to_name_it() -> None:
    chart = [{"first_meld": [3, 3], "wild": ["joker", "2", "ace"]}, *default_chart()[1:]]
    state = deal(2, [["H2", "D2", "S1", "H9", "S9", "D9"]], "H13", ["S8"], options={"chart": chart})
    state = ok(ok(state, 0, {"type": "decline"}), 1, {"type": "pass"})
    answer = BINDING.interpret(
        state, Drop(0, ("H9", "S9", "D9", "H2", "D2", "S1"), "hand", NEW_MELD)
    )
    assert isinstance(answer, Rejection) and answer.code == "rank_needed"
    assert answer.message.endswith("lay that set down on its own to say which rank.")


def test_sets_laid_one_at_a_time_split_for_what_is_still_needed() -> None:
    chart = [{"first_meld": [4, 3], "wild": ["joker"]}, *default_chart()[1:]]
    hand = ["C5", "D5", "H5", "S5", "C6", "D6", "J1"]
    state = deal(2, [hand], "H13", ["S8"], options={"chart": chart})
    state = ok(ok(state, 0, {"type": "decline"}), 1, {"type": "pass"})
    assert (
        BINDING.hint(state, 0)
        == "Your first meld this round: " + ENGINE.view(state, None)["requirement"]["text"]
    )
    state = ok(state, 0, dropped(state, ["C5", "D5", "H5", "S5"]))
    assert not state.opened[0] and BINDING.hint(state, 0).endswith(
        "Still to lay this turn: one set of 3; if you discard first, your sets go back to your "
        "hand."
    )
    action = dropped(state, ["C6", "D6", "J1"])  # the joker tops up the set of 3 still needed
    assert action["melds"] == [{"cards": ["C6", "D6", "J1"]}]
    after = ok(state, 0, action)
    assert after.opened[0] and BINDING.hint(after, 0) is None


def test_a_drop_only_one_rank_fits_is_left_to_the_engine() -> None:
    # Two 2 of hearts can't both be naturals in a set of 2s; as aces they are two wild cards.
    state = ready(["H2", "H2", "S1", "H9"])
    action = dropped(state, ["H2", "H2", "S1"])
    assert "rank" not in action["melds"][0]
    after = ok(state, 0, action)
    assert after.melds[0][0].rank == 1
