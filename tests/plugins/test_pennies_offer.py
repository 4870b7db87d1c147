"""Rule 5 (*ours*) on the table: the player who discarded the top card is never offered it back,
neither by the engine's legal actions nor by the buttons the binding gives them, in bot
self-play with 2, 3 and 4 players (the discarder is tracked here from the actions alone).

With 3-4 players the deck is four decks: another player may discard a card of the same face
just after you, and that one you may buy (it is theirs)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from plugins.pennies import ENGINE, choose_action
from plugins.pennies.binding import BINDING
from plugins.pennies.rules import PenniesState
from plugins.simulate import drive


def offers_in_one_game(players: int, seed: int) -> int:
    """Self-play one game, checking every state; returns how many buy buttons were given."""
    offers = 0
    discarder: int | None = None

    def observe(
        state: PenniesState, player: Any, action: dict[str, Any], after: PenniesState
    ) -> None:
        nonlocal offers, discarder
        if action["type"] == "discard":
            discarder = player
        elif after.round_no != state.round_no or after.discard[-1:] != state.discard[-1:]:
            discarder = None  # a new upcard, or the card was bought
        for p in range(players):
            buys = [c for c in BINDING.controls(after, p) if c.action["type"] == "buy"]
            legal = [a for a in ENGINE.legal_actions(after, p) if a["type"] == "buy"]
            offers += bool(buys)
            if p == discarder:
                assert not buys and not legal, (seed, p, after.phase, after.discard[-1:])

    state = ENGINE.new_game(players, {}, seed)
    drive(
        ENGINE, state, [choose_action] * players, [random.Random(seed)] * players, observe=observe
    )
    return offers


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_discarder_is_never_offered_the_card_back(players: int) -> None:
    assert sum(offers_in_one_game(players, seed) for seed in range(3)) > 100
