"""Rummy's view carries the melds your own hand could make (``groups``), for the page's "Group
melds" toggle (issue 20 item 5): the arrangement with the fewest points left, yours only."""

from __future__ import annotations

from plugins.rummy.rules import ENGINE
from tests.plugins.test_rummy_rules import dealt


def test_the_view_groups_your_own_hand_into_melds() -> None:
    ana = ["H4", "C9", "S4", "D9", "H10", "C4", "S9", "D2", "H6", "S12"]
    ben = ["C1", "D7", "H13", "S3", "C6", "D11", "H8", "S5", "C12", "D3"]
    dealer = ENGINE.new_game(2, {}, 31).dealer
    state = ENGINE.new_game(2, {}, 31, deck=dealt([ana, ben], dealer, "C13", ["H5"]))
    assert sorted(state.hands[0]) == sorted(ana)
    assert ENGINE.view(state, 0)["groups"] == [["C4", "H4", "S4"], ["C9", "D9", "S9"]]
    assert ENGINE.view(state, 1)["groups"] == []  # Ben's hand holds no meld
    assert ENGINE.view(state, None)["groups"] is None  # a spectator has no hand
