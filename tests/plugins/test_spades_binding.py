"""The Spades binding's table: each side's bags (rule 12), the bids and the tricks taken are on
the players' seat plates, read from the game view (the public one too: a spectator sees them),
not loose markers on the table; an unchanged place is the object shown before."""

from __future__ import annotations

from plugins.spades.binding import BINDING
from plugins.spades.rules import ENGINE, SpadesState
from tests.plugins.test_spades_rules import bid_all, first_state, ok, play_deal


def bags_shown(state: SpadesState) -> tuple[int, int]:
    """Each side's bags as a seat plate reads them: from the public view and every player's."""
    bags = ENGINE.view(state, None)["bags"]
    for p in range(4):
        assert ENGINE.view(state, p)["bags"] == bags
    return bags[0], bags[1]


def test_each_sides_bags_are_in_the_view() -> None:
    counts = {0: 0, 1: 1, 2: 10, 3: 2}  # side 0 bids 6 and takes 10; side 1 bids 3, takes 3
    state = first_state(counts)
    assert bags_shown(state) == (0, 0)
    state = play_deal(state, {0: 0, 1: 1, 2: 6, 3: 2}, counts, fresh=False)
    assert state.bags == (4, 0) and bags_shown(state) == (4, 0)
    state = ok(state, 0, {"type": "next_deal"})
    assert bags_shown(state) == (4, 0)  # bags carry over into the next deal
    state = play_deal(state, {0: 0, 1: 1, 2: 7, 3: 2}, counts)
    assert bags_shown(state) == (7, 0)
    state = ok(state, 0, {"type": "next_deal"})
    last = {0: 6, 1: 3, 2: 2, 3: 2}  # side 0 bids 5 and takes 8: 10 bags, 10 removed
    state = play_deal(state, {0: 3, 1: 2, 2: 2, 3: 2}, last)
    assert state.history[-1].sides[0].penalty == -100
    assert bags_shown(state) == (0, 1) == state.bags
    # The numbers come from the state alone: a stored game shows the same.
    assert bags_shown(ENGINE.load(ENGINE.dump(state))) == (0, 1)


def test_bids_and_tricks_are_on_the_plates_not_loose_on_the_table() -> None:
    state = bid_all(first_state({0: 3, 1: 4, 2: 2, 3: 4}), {0: 3, 1: 0, 2: 3, 3: 3})
    assert BINDING.project(state).markers == ()
    public = ENGINE.view(state, None)
    assert public["bids"] == [3, 0, 3, 3] and public["tricks_taken"] == [0, 0, 0, 0]
    assert public["teams"] == [[0, 2], [1, 3]] and public["hand_counts"] == [13] * 4
    assert state.turn is not None
    played = state
    for _ in range(4):
        assert played.turn is not None
        played = ok(played, played.turn, ENGINE.legal_actions(played, played.turn)[0])
    played = ok(played, None, {"type": "gather"}) if played.trick else played
    assert sum(ENGINE.view(played, None)["tricks_taken"]) == 1
    assert BINDING.project(played).markers == ()


def test_unchanged_places_and_markers_are_the_objects_shown_before() -> None:
    """A card played changes the player's trick place and nothing else of the projection: the
    other places and every marker are the very objects of the projection before, so the server
    finds them unchanged at a glance (server/game/rules.py, _project)."""
    state = bid_all(first_state({0: 3, 1: 3, 2: 4, 3: 3}), {0: 3, 1: 3, 2: 4, 3: 3})
    before = BINDING.project(state)
    assert state.turn is not None
    played = ok(state, state.turn, ENGINE.legal_actions(state, state.turn)[0])
    after = BINDING.project(played)
    was = {z.id: z for z in [*before.zones, *before.markers]}
    changed = [o.id for o in [*after.zones, *after.markers] if was[o.id] != o]
    assert changed == [f"trick{state.turn}"]
    assert all(was[o.id] is o for o in [*after.zones, *after.markers] if o.id not in changed)


def test_finished_tricks_history_and_scoreboard_are_worked_out_once_per_value() -> None:
    # A card played leaves the finished tricks and the history as they were: every view of
    # the next state shares their plain data, and the scoreboard is the same object; a
    # gathered trick or a scored deal makes new ones (equal to a fresh conversion).
    counts = {0: 0, 1: 1, 2: 10, 3: 2}
    state = play_deal(first_state(counts), {0: 0, 1: 1, 2: 6, 3: 2}, counts, fresh=False)
    state = ok(state, 0, {"type": "next_deal"})
    names = ["Ana", "Ben", "Cy", "Di"]
    before = ENGINE.view(state, None)
    board = ENGINE.scoreboard(state, names)
    state = bid_all(state, {0: 3, 1: 4, 2: 2, 3: 4})
    after = ENGINE.view(state, 1)
    assert after["history"] is before["history"] and after["played"] is before["played"]
    assert ENGINE.scoreboard(state, names) is board
    assert ENGINE.scoreboard(state, ["Ana", "Ben", "Cy", "Dee"]) is not board
    loaded = ENGINE.load(ENGINE.dump(state))  # equal values, other tuples: converted anew
    again = ENGINE.view(loaded, 1)
    assert again == after and again["history"] is not after["history"]
