"""Spades on the table: four places round the table, the trick in the middle, won tricks by
each player, bids and tricks taken as markers, and each side's bags (rule 12) as a "Team bags"
counter at the place of the side's first player (players 0 and 1); drags and buttons mapped to
engine actions.

Drags: a card from your hand onto the middle (any ``trick<p>`` zone) = play it. Reordering your
own hand is cosmetic. Bids, looking at blind cards, passing 2 cards and the next deal are
controls (buttons; bids are grouped for the page's bid pad).
"""

from __future__ import annotations

import functools
from typing import Any

from plugins.base import Control, Cosmetic, Drop, Marker, Projection, Rejection, ZoneSpec
from plugins.cards import card_name
from plugins.layout import at, slots
from plugins.spades.rules import ENGINE, TEAMS, Spades, SpadesState

SLOTS = slots(4)
TRICK_REACH = 300.0  # how far from its place towards the middle a player's trick card lies
WON_SIDE = 330.0  # won tricks lie to the player's right
TAKEN_SIDE = -400.0  # the tricks counter lies to the player's left
# The bags counter: in front of the tricks counter, far enough ahead (and clear of the bid
# label) that the two boxes don't overlap when a page turns the table a quarter round.
BAGS_AT = (160.0, -420.0)


def _at(player: int, forward: float, side: float) -> tuple[float, float]:
    return at(SLOTS[player], forward, side)


# The projection's places and markers are frozen and depend on a few values each: each one is
# built once per value and shared (a move changes two or three of them; the rest are the same
# objects as before, which makes the server's comparison with the last projection cheap).


@functools.cache
def _trick_zone(p: int, card: str | None) -> ZoneSpec:
    x, y = _at(p, TRICK_REACH, 0.0)
    faces = (card,) if card is not None else ()
    return ZoneSpec(f"trick{p}", "", x - 55, y - 75, faces, up=True, owner=p, drop=True)


@functools.lru_cache(maxsize=4096)
def _won_zone(p: int, cards: tuple[str, ...]) -> ZoneSpec:
    wx, wy = _at(p, 0.0, WON_SIDE)
    return ZoneSpec(f"won{p}", "Tricks", wx - 55, wy - 75, cards, owner=p)


@functools.cache
def _bid_marker(p: int, bid: int, blind: bool) -> Marker:
    text = ("Blind nil" if blind else "Nil") if bid == 0 else f"Bid {bid}"
    bx, by = _at(p, 120.0, -260.0)
    return Marker(f"bid{p}", "label", bx, by, text=text, owner=p)


@functools.cache
def _taken_marker(p: int, tricks: int) -> Marker:
    tx, ty = _at(p, 0.0, TAKEN_SIDE)  # to the player's left, clear of the won tricks
    return Marker(f"taken{p}", "counter", tx, ty, label="Tricks", value=tricks, owner=p)


@functools.lru_cache(maxsize=4096)
def _bags_marker(side: int, bags: int) -> Marker:
    team = TEAMS[side]
    bx, by = _at(team[0], *BAGS_AT)
    return Marker(f"bags{side}", "counter", bx, by, label="Team bags", value=bags, owner=team[0])


class SpadesBinding:
    info = ENGINE.info
    engine: Spades = ENGINE
    widgets = ("bid_pad",)

    def project(self, state: SpadesState) -> Projection:
        trick = {((state.leader or 0) + i) % 4: c for i, c in enumerate(state.trick)}
        won: dict[int, list[str]] = {p: [] for p in range(4)}
        taken = [0, 0, 0, 0]
        for t in state.tricks:
            won[t.winner].extend(t.cards)
            taken[t.winner] += 1
        zones: list[ZoneSpec] = []
        markers: list[Marker] = []
        for p in range(4):
            zones.append(_trick_zone(p, trick.get(p)))
            zones.append(_won_zone(p, tuple(won[p])))
            bid = state.bids[p]
            if bid is not None:
                markers.append(_bid_marker(p, bid, state.blind[p]))
            markers.append(_taken_marker(p, taken[p]))
        for side in range(len(TEAMS)):
            markers.append(_bags_marker(side, state.bags[side]))
        hands = {p: tuple(h) for p, h in enumerate(state.hands)}
        return Projection(
            zones=tuple(zones), hands=hands, deal=state.deal_no, markers=tuple(markers), slots=SLOTS
        )

    def interpret(self, state: SpadesState, drop: Drop) -> dict[str, Any] | Cosmetic | Rejection:
        if drop.source == "hand" and drop.dest == "hand":
            return Cosmetic()
        if drop.source == "hand" and drop.dest.startswith("trick") and len(drop.cards) == 1:
            return {"type": "play", "card": drop.cards[0]}
        if len(drop.cards) > 1:
            return Rejection("one_card", "In Spades you play one card at a time.")
        return Rejection(
            "not_a_spades_move",
            "In Spades you play a card by dragging it from your hand to the middle of the table.",
        )

    def controls(self, state: SpadesState, player: int) -> list[Control]:
        out: list[Control] = []
        for action in self.engine.legal_actions(state, player):
            kind = action["type"]
            if kind == "bid":
                bid = action["bid"]
                label = ("Blind nil" if action.get("blind") else "Nil") if bid == 0 else str(bid)
                out.append(Control(action, label, group="bid"))
            elif kind == "play":
                card = action["card"]
                out.append(
                    Control(
                        action,
                        f"Play the {card_name(card)}",
                        kind="drag",
                        source="hand",
                        dest=f"trick{player}",
                        cards=(card,),
                    )
                )
            elif kind == "look":
                out.append(Control(action, "Look at my cards"))
            elif kind == "pass_cards":
                if not any(c.action["type"] == "pass_cards" for c in out):
                    out.append(Control({"type": "pass_cards"}, "Pass these 2 cards", pick=2))
            elif kind == "next_deal":
                out.append(Control(action, "Next deal"))
        return out

    def hint(self, state: SpadesState, player: int) -> str | None:
        return None


BINDING = SpadesBinding()
