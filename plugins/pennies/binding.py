"""Pennies on the table: the stock and discard pile in the middle, each player's meld area,
pennies as chips at each place and a shared spent pile, and the round's contract shown as a
label; the buying window as a prompt with a countdown.

Drags: the cards selected in your hand dropped together on "New meld" = lay them down (split
into sets by rank, wild cards filling the sets that need them; the engine has the last word),
cards onto a meld = lay them off, one card onto the discard pile = discard it. Buying, declining
and passing are prompts; the next round is a button.

The first meld may be laid one set at a time in the turn (rule 6): a drop on "New meld" before
it is split for the requirement still to meet (:func:`plugins.pennies.rules.still_needed`);
sets short of it lie in the player's meld zones until the discard gives them back to the hand
(their cards keep the ids the table gave them there, as any card taken from a zone into a
hand; they get new ones when they leave the hand again). :meth:`PenniesBinding.hint` says
what is still needed.

Naming the rank (rule 6, *ours*): a set that could stand for two ranks (a 2, an ace and a joker
in rounds 5-7) is the player's to name. The page's ``rank_chooser`` widget asks ("Set of 2s /
Set of aces") when the selected cards dropped on "New meld" could be either, and sends the meld
with its ``rank`` as a ``game`` command. A drop that reaches the binding unnamed is never
guessed: alone, it goes to the engine, which answers ``rank_needed``; among other sets, the
binding answers ``rank_needed`` asking to lay that set down on its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from plugins.base import Control, Cosmetic, Drop, Marker, Projection, Rejection, ZoneSpec
from plugins.cards import card_name, card_names, rank
from plugins.layout import CARD_H, GAP, STEPS, Segment, at, fill, flow, room, slots
from plugins.pennies.chart import sets_text
from plugins.pennies.rules import ENGINE, Pennies, PenniesState, set_rank, still_needed

NEW_MELD = "newmeld"
# The middle: the contract over the stock, the discard pile, "New meld" and the spent pile.
MIDDLE_Y = 462.0
# Each player's melds, in their own frame (forward from their place, side to their right), in
# a region from the table's edge (forward EDGE) to FORWARD_MAX, HALF either side: two rows, the
# one nearer the middle filled first; the row at the place leaves room for the hand drawn there
# and the pennies beside it. Melds take square room (see plugins.layout.flow), so the regions
# hold on every side of the table as each page turns it. With players at the sides a region's
# depth and width are traded (CORNER: a side region's inner edge must stay left of the bottom
# region, 130 + forward <= 800 - half); the middle lies between the regions (forward 266 at
# most: y 386 / 614 at the top / bottom, x 396 / 1204 at the sides).
EDGE = -118.0
FORWARD_MAX = 266.0
CORNER = 670.0
HALVES = (490.0, 450.0, 420.0, 390.0)
HALVES_TWO = (440.0, 420.0, 390.0)  # two players: at most 880 wide (a phone's upright table: 900)
HAND_FRONT = 58.0  # the far row begins past the hand's fan (50 deep each side of the place)
MELD_MAX = 190.0
HAND_HALF = 118.0  # half the width kept free at the place for the hand's fan (13 backs: 226)
CHIPS = 96.0
CHIPS_SIDE = HAND_HALF + CHIPS / 2
CHIPS_FORWARD = EDGE + CHIPS / 2


Spot = tuple[float, float, float]


def meld_spots(areas: Sequence[Sequence[int]]) -> list[list[Spot]]:
    """Where each player's melds (of these many cards) go: ``(side, forward, width)`` each,
    the centre in that player's frame. The widest fans that fit, in the widest region (the
    same for every player) that leaves them room to be as deep as they are wide."""
    players = len(areas)
    halves = HALVES_TWO if players == 2 else HALVES
    for step in STEPS:
        for half in halves:
            deepest = FORWARD_MAX if players == 2 else min(FORWARD_MAX, CORNER - half)
            spots = [_spots(sizes, step, half, deepest) for sizes in areas]
            if all(s is not None for s in spots):
                return [s or [] for s in spots]
    # More than fits (not seen in play): the narrowest region's rows at the narrowest fans.
    half = halves[-1]
    rows = [
        (EDGE + MELD_MAX + GAP + MELD_MAX / 2, -half, half),
        (EDGE + MELD_MAX / 2, -half, -HAND_HALF),
        (EDGE + MELD_MAX / 2, CHIPS_SIDE + CHIPS / 2 + GAP, half),
    ]
    return [flow(sizes, rows, max_w=MELD_MAX, square=True) for sizes in areas]


def _spots(sizes: Sequence[int], step: float, half: float, deepest: float) -> list[Spot] | None:
    rows: list[Segment] = [
        (1.0, -half, half),
        (0.0, -half, -HAND_HALF),
        (0.0, CHIPS_SIDE + CHIPS / 2 + GAP, half),
    ]
    placed = fill(sizes, rows, step, MELD_MAX, True)
    if len(placed) < len(sizes):
        return None
    near = max([CHIPS, *(room(w, True) for _, r, w in placed if r == 0.0)])
    far = max([0.0, *(room(w, True) for _, r, w in placed if r == 1.0)])
    begin = max(EDGE + near + GAP, HAND_FRONT)
    if begin + far > deepest:
        return None
    at = {0.0: EDGE + near / 2, 1.0: begin + far / 2}
    return [(side, at[r], w) for side, r, w in placed]


def meld_zone(player: int, index: int) -> str:
    return f"m{player}x{index}"


def split_sets(
    cards: Sequence[str], wild: frozenset[int], sizes: Sequence[int]
) -> list[dict[str, Any]]:
    """A selection of cards as sets: naturals grouped by rank, wild cards added to the sets
    short of the sizes the round asks for (or of 3), biggest need first. No set carries a
    ``rank``: one that could stand for two is the player's to name (see the module
    docstring)."""
    naturals: dict[int, list[str]] = {}
    wilds: list[str] = []
    for c in cards:
        r = rank(c)
        if r == 0:
            wilds.append(c)
        else:
            naturals.setdefault(r, []).append(c)
    # A wild rank forms its own set only when it has company of its own rank or nothing else.
    for r in sorted(wild - {0}):
        if r in naturals and len(naturals) > 1 and len(naturals[r]) < 2:
            wilds.extend(naturals.pop(r))
    groups = sorted(naturals.items(), key=lambda kv: -len(kv[1]))
    needs = sorted(sizes, reverse=True) or [3]
    sets: list[tuple[int, list[str]]] = []
    for i, (r, group) in enumerate(groups):
        want = needs[i] if i < len(needs) else 3
        extra = max(0, want - len(group))
        take, wilds = wilds[:extra], wilds[extra:]
        sets.append((r, [*group, *take]))
    if wilds and sets:
        sets[0][1].extend(wilds)
    return [{"cards": group} for _, group in sets]


class PenniesBinding:
    info = ENGINE.info
    engine: Pennies = ENGINE
    widgets: tuple[str, ...] = ("rank_chooser",)

    def project(self, state: PenniesState) -> Projection:
        n = state.players
        places = slots(n)
        zones = [
            ZoneSpec(
                "stock",
                "Stock",
                503.0,
                MIDDLE_Y,
                tuple(reversed(state.stock)),
                shuffled=state.last_move is not None and state.last_move.reshuffled,
            ),
            ZoneSpec(
                "discard", "Discard", 629.0, MIDDLE_Y, tuple(state.discard), up=True, drop=True
            ),
            ZoneSpec(NEW_MELD, "New meld", 755.0, MIDDLE_Y, (), layout="row", w=230.0, drop=True),
        ]
        markers = [
            Marker(
                "spent",
                "chips",
                1001.0,
                MIDDLE_Y + 27.0,
                label="Spent",
                value=state.spent,
                color="copper",
            ),
            Marker(
                "contract",
                "label",
                700.0,
                MIDDLE_Y - 74.0,
                text=self.engine.view(state, None)["requirement"]["text"],
            ),
        ]
        spots = meld_spots([[len(m.cards) for m in area] for area in state.melds])
        for p in range(n):
            for i, (meld, (side, forward, w)) in enumerate(
                zip(state.melds[p], spots[p], strict=True)
            ):
                x, y = at(places[p], forward, side)
                zones.append(
                    ZoneSpec(
                        meld_zone(p, i),
                        "",
                        x - w / 2,
                        y - CARD_H / 2,
                        tuple(meld.cards),
                        up=True,
                        layout="row",
                        w=w,
                        h=CARD_H,
                        owner=p,
                        drop=True,
                    )
                )
            px, py = at(places[p], CHIPS_FORWARD, CHIPS_SIDE)
            markers.append(
                Marker(
                    f"pennies{p}",
                    "chips",
                    px - CHIPS / 2,
                    py - CHIPS / 2,
                    label="Pennies",
                    value=state.pennies[p],
                    color="copper",
                    owner=p,
                )
            )
        return Projection(
            zones=tuple(zones),
            hands={p: tuple(h) for p, h in enumerate(state.hands)},
            # A new round is a new deal. A stock rebuilt from the discard pile needs none: the
            # projection gives a card seen face up that now lies face down a new id.
            deal=state.round_no,
            markers=tuple(markers),
            slots=places,
        )

    def interpret(self, state: PenniesState, drop: Drop) -> dict[str, Any] | Cosmetic | Rejection:
        src, dest, cards = drop.source, drop.dest, drop.cards
        if src == "hand" and dest == "hand":
            return Cosmetic()
        if src == "hand" and dest == NEW_MELD:
            row = self.engine.requirement(state)
            p = drop.player
            laid = [len(m.cards) for m in state.melds[p]] if 0 <= p < state.players else []
            opened = 0 <= p < state.players and state.opened[p]
            sizes = [] if opened else list(still_needed(row.first_meld, laid))
            wild = self.engine.wild(state)
            sets = split_sets(cards, wild, sizes)
            if len(sets) > 1:
                for one in sets:
                    found = set_rank(one["cards"], wild)
                    if isinstance(found, Rejection) and found.code == "rank_needed":
                        return Rejection(
                            "rank_needed",
                            found.message.removesuffix(" say which rank.")
                            + " lay that set down on its own to say which rank.",
                        )
            return {"type": "meld", "melds": sets}
        if src == "hand" and dest.startswith("m") and "x" in dest:
            owner, _, index = dest[1:].partition("x")
            if owner.isdigit() and index.isdigit():
                return {
                    "type": "lay_off",
                    "cards": list(cards),
                    "meld": {"player": int(owner), "index": int(index)},
                }
        if src == "hand" and dest == "discard" and len(cards) == 1:
            return {"type": "discard", "card": cards[0]}
        if dest == "hand" and src in ("stock", "discard"):
            return Rejection(
                "use_the_buttons",
                "In Pennies you buy the discard or decline (and draw) with the buttons.",
            )
        return Rejection(
            "not_a_pennies_move",
            "In Pennies you lay down sets on 'New meld', "
            "lay off onto melds and discard onto the discard pile.",
        )

    def controls(
        self, state: PenniesState, player: int, legal: list[dict[str, Any]] | None = None
    ) -> list[Control]:
        out: list[Control] = []
        top = state.discard[-1] if state.discard else None
        for action in legal if legal is not None else self.engine.legal_actions(state, player):
            kind = action["type"]
            if kind == "buy" and top is not None:
                out.append(
                    Control(
                        action, f"Buy the {card_name(top)} for a penny", kind="prompt", group="buy"
                    )
                )
            elif kind in ("decline", "pass"):
                out.append(Control(action, "No thanks", kind="prompt", group="buy"))
            elif kind == "meld":
                cards = tuple(c for m in action["melds"] for c in m["cards"])
                out.append(
                    Control(
                        action,
                        f"Meld the {card_names(cards)}",
                        kind="drag",
                        source="hand",
                        dest=NEW_MELD,
                        cards=cards,
                    )
                )
            elif kind == "lay_off":
                m = action["meld"]
                cards = tuple(action["cards"])
                out.append(
                    Control(
                        action,
                        f"Lay off the {card_names(cards)}",
                        kind="drag",
                        source="hand",
                        dest=meld_zone(m["player"], m["index"]),
                        cards=cards,
                    )
                )
            elif kind == "discard":
                card = action["card"]
                out.append(
                    Control(
                        action,
                        f"Discard the {card_name(card)}",
                        kind="drag",
                        source="hand",
                        dest="discard",
                        cards=(card,),
                    )
                )
            elif kind == "next_round":
                out.append(Control(action, "Next round"))
        return out

    def hint(
        self, state: PenniesState, player: int, view: dict[str, Any] | None = None
    ) -> str | None:
        if state.phase == "play" and state.turn == player and not state.opened[player]:
            need = self.engine.view(state, None)["requirement"]["text"]
            laid = state.melds[player]
            if not laid:
                return f"Your first meld this round: {need}"
            still = still_needed(
                self.engine.requirement(state).first_meld, [len(m.cards) for m in laid]
            )
            return (
                f"Your first meld this round: {need}. Still to lay this turn: "
                f"{sets_text(still)}; if you discard first, your sets go back to your hand."
            )
        return None


BINDING = PenniesBinding()
