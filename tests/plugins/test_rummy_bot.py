"""The Rummy computer player on constructed states: it lays off cards onto the melds on the
table (anyone's), the most valuable first, and goes out by laying off when it can."""

from __future__ import annotations

import random
from typing import Any

from plugins.rummy import ENGINE, RummyState, choose_action
from plugins.rummy.rules import HAND_OVER, PLAY
from tests.plugins.test_rummy_rules import drew, make, ok

RUN = ["H4", "H5", "H6"]
KINGS = ["C13", "D13", "H13"]


def bot(state: RummyState, player: int = 0) -> dict[str, Any] | None:
    action = choose_action(ENGINE, state, player, random.Random(3))
    assert action is None or action in ENGINE.legal_actions(state, player)
    return action


def test_lays_off_onto_a_meld_on_the_table() -> None:
    hand = ["H7", "C2", "D9", "S5", "C8", "D11", "S3"]  # only the 7 of hearts fits anywhere
    state = drew(make([hand, ["C3", "C4", "D2"]], melds=[RUN], turn=0), "S3")
    assert bot(state) == {"type": "lay_off", "card": "H7", "meld": 0}
    state = ok(state, 0, {"type": "lay_off", "card": "H7", "meld": 0})
    assert state.melds[0] == ("H4", "H5", "H6", "H7")
    action = bot(state)  # nothing else fits: the turn ends with a discard
    assert action is not None and action["type"] == "discard"


def test_without_a_meld_to_fit_it_does_not_lay_off() -> None:
    hand = ["H9", "C2", "D9", "S5", "C8", "D11", "S3"]
    state = drew(make([hand, ["C3", "C4", "D2"]], melds=[RUN], turn=0), "S3")
    action = bot(state)
    assert action is not None and action["type"] == "discard"


def test_lays_off_the_most_valuable_card_first_and_goes_out() -> None:
    # The king of spades fits the kings (10 points), the 7 of hearts the run (7 points).
    state = drew(make([["S13", "H7"], ["C3", "C4", "D2"]], melds=[RUN, KINGS], pile=["C9"]), "S13")
    assert state.phase == PLAY
    first = bot(state)
    assert first == {"type": "lay_off", "card": "S13", "meld": 1}
    assert first is not None
    state = ok(state, 0, first)
    second = bot(state)
    assert second == {"type": "lay_off", "card": "H7", "meld": 0}
    assert second is not None
    state = ok(state, 0, second)
    assert state.phase == HAND_OVER and state.results[-1].winner == 0
