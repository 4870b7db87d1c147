"""The Spades binding's table: each side's bags (rule 12) are shown as a counter, like the bids
and tricks, and the markers round a place don't cover each other."""

from __future__ import annotations

from plugins.base import Marker
from plugins.spades.binding import BINDING
from plugins.spades.rules import ENGINE, SpadesState
from tests.plugins.test_spades_rules import bid_all, first_state, ok, play_deal

# The sizes the page draws markers at (web/src/table/board.ts WIDGET_SIZE).
SIZE = {"counter": (150.0, 66.0), "label": (200.0, 40.0)}


def markers(state: SpadesState) -> dict[str, Marker]:
    return {m.id: m for m in BINDING.project(state).markers}


def bags_shown(state: SpadesState) -> tuple[int, int]:
    found = markers(state)
    for side in (0, 1):
        m = found[f"bags{side}"]
        assert (m.kind, m.label, m.owner) == ("counter", "Team bags", side)
    return found["bags0"].value, found["bags1"].value


def test_each_sides_bags_are_on_the_table() -> None:
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
    # The counters come from the state alone: a stored game shows the same.
    assert bags_shown(ENGINE.load(ENGINE.dump(state))) == (0, 1)


def test_markers_round_a_place_do_not_overlap() -> None:
    state = bid_all(first_state({0: 3, 1: 4, 2: 2, 3: 4}), {0: 3, 1: 3, 2: 3, 3: 3})
    boxes = []
    for m in markers(state).values():
        w, h = SIZE[m.kind]
        boxes.append((m.id, m.x, m.y, w, h))
    assert {b[0] for b in boxes} >= {"bid0", "taken0", "bags0", "bid1", "taken1", "bags1"}
    for i, (a, ax, ay, aw, ah) in enumerate(boxes):
        assert min(ax, ay) >= 0 and ay + ah <= 1000, a
        for b, bx, by, bw, bh in boxes[i + 1 :]:
            apart = ax + aw <= bx or bx + bw <= ax or ay + ah <= by or by + bh <= ay
            assert apart, (a, b)


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
