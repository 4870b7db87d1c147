"""Pennies self-play: 500 full games of 7 rounds (300 bots against bots, 200 a bot against
random-legal players, 2-4 players, a fifth of them with a room's own chart) with invariants
checked after every action: every card exactly as often as the decks hold it, pennies
conserved and reconciling with buys and payments, no empty hand while a round goes on, scores
reconciling with the cards left, each move's bookkeeping, the buying window's scheduled lapse,
the view of the player to move next (or a spectator's) never showing another player's hidden
cards; ``load(dump(s)) == s`` at every round end and every 199th action. Plus the bot's win rate.

The stock is rebuilt without limit (rule 9), so a round can go on for ever (players stuck with
cards nothing on the table takes and no pennies): the driver bounds the actions of a round
(``ROUND_BOUND``) and reports every round that reaches it, ending that game there.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from typing import Any

import msgspec
import pytest

from plugins.base import Scheduled
from plugins.pennies import ENGINE, choose_action
from plugins.pennies.chart import default_chart
from plugins.pennies.rules import (
    BUY,
    GAME_OVER,
    OFFER,
    PLAY,
    ROUND_OVER,
    PenniesState,
    card_points,
    full_deck,
)
from plugins.simulate import Bot, drive, one_at_random

SORTED_DECK = {n: sorted(full_deck(n)) for n in (2, 3, 4)}
# View keys compared with the public state itself; every other key is searched for cards.
PUBLIC_KEYS = frozenset({"discard_pile", "melds", "bought", "hand"})
CODES = frozenset(full_deck(4))
BOT_GAMES = 300
RANDOM_GAMES = 200
ROUND_BOUND = 5_000  # actions in one round before the driver gives up on it and reports it
# A room's own chart: bigger first melds, other wild cards (exercises the chart option).
CUSTOM_CHART = [
    {"first_meld": [3], "wild": []},
    {"first_meld": [3, 3], "wild": ["joker", "king"]},
    {"first_meld": [3, 3, 3], "wild": ["joker", "2", "ace", "king"]},
    *default_chart()[3:],
]

Policy = Bot


class SharedViews:
    """The engine, remembering its last view so that the privacy check and the bot about to
    move share one computation (the bot still sees nothing but ``view`` and the engine)."""

    def __init__(self) -> None:
        self.key: tuple[PenniesState, int | None] | None = None
        self.last: dict[str, Any] = {}

    def view(self, state: PenniesState, player: int | None) -> dict[str, Any]:
        if self.key is None or self.key[0] is not state or self.key[1] != player:
            self.key, self.last = (state, player), ENGINE.view(state, player)
        return self.last

    def __getattr__(self, name: str) -> Any:
        return getattr(ENGINE, name)


VIEWS = SharedViews()


def bot(engine: Any, state: PenniesState, player: int, rng: random.Random) -> dict[str, Any]:
    action = choose_action(VIEWS, state, player, rng)  # type: ignore[arg-type]
    assert action is not None, "the bot must move when it is asked to"
    return action


def random_legal(
    engine: Any, state: PenniesState, player: int, rng: random.Random
) -> dict[str, Any]:
    """A random legal move; offered a discard, it lets the offer lapse now and then."""
    scheduled = ENGINE.scheduled(state) if state.phase == OFFER else None
    if scheduled is not None and rng.random() < 0.3:
        return scheduled.action  # the random player lets the offer lapse
    return rng.choice(ENGINE.legal_actions(state, player))


# ------------------------------------------------------------------------------ invariants


def codes_in(view: dict[str, Any]) -> set[str]:
    """Every card code anywhere in a view."""
    return CODES.intersection(msgspec.json.encode(view).decode().split('"'))


def check_view(state: PenniesState, player: int | None) -> None:
    """A view holds the public piles exactly as they are, the viewer's own hand, and no other
    card anywhere else (other hands show only in the reveal once the round is over)."""
    view = VIEWS.view(state, player)
    assert view["phase"] == state.phase and view["to_act"] == ENGINE.to_act(state)
    assert view["hand_counts"] == [len(h) for h in state.hands]
    assert view["stock_count"] == len(state.stock)
    assert view["discard_pile"] == list(state.discard)
    assert view["melds"] == [
        [{"rank": m.rank, "cards": list(m.cards)} for m in area] for area in state.melds
    ]
    assert view["bought"] == [list(b) for b in state.bought]
    own = list(state.hands[player]) if player is not None else None
    assert view["hand"] == own
    rest = {k: v for k, v in view.items() if k not in PUBLIC_KEYS}
    shown = set(state.discard[-1:]) | {c for b in state.bought for c in b}
    if state.last_move is not None:
        shown |= {state.last_move.card, *state.last_move.cards}  # laid down for all to see
        shown |= set(state.last_move.returned)  # sets short of the first meld, seen face up
    if state.phase in (ROUND_OVER, GAME_OVER):
        shown |= {c for h in state.hands for c in h}  # the reveal
    assert codes_in(rest) <= shown, "a hidden card leaked"


def check_cards(state: PenniesState, before: PenniesState | None) -> None:
    """Every card exactly as often as the decks hold it, across hands, melds, stock and discard
    pile: counted in full at the start, on every new deal, reshuffle and round end; in between,
    each move must only move cards (what leaves one place arrives in another)."""
    if (
        before is None
        or state.round_no != before.round_no
        or state.reshuffles != before.reshuffles
        or state.phase in (ROUND_OVER, GAME_OVER)
    ):
        everything = itertools.chain(
            *state.hands,
            *(m.cards for area in state.melds for m in area),
            state.stock,
            state.discard,
        )
        assert sorted(everything) == SORTED_DECK[state.players], "cards lost or duplicated"
        return
    delta: Counter[str] = Counter()
    for old, new in zip(before.hands, state.hands, strict=True):
        if new is not old:
            delta.update(new)
            delta.subtract(old)
    for old_area, new_area in zip(before.melds, state.melds, strict=True):
        if new_area is not old_area:
            delta.update(c for m in new_area for c in m.cards)
            delta.subtract(c for m in old_area for c in m.cards)
    taken = len(before.stock) - len(state.stock)  # without a reshuffle cards only leave the top
    assert taken >= 0 and before.stock[taken:] == state.stock, "the stock changed underneath"
    delta.subtract(before.stock[:taken])
    kept = min(len(before.discard), len(state.discard))
    assert before.discard[:kept] == state.discard[:kept], "the discard pile changed underneath"
    delta.update(state.discard[kept:])
    delta.subtract(before.discard[kept:])
    assert not any(delta.values()), f"cards lost or duplicated: {+delta} {-delta}"


def check_state(state: PenniesState, before: PenniesState | None = None) -> None:
    n = state.players
    check_cards(state, before)
    assert min(state.pennies) >= 0 and sum(state.pennies) + state.spent == 10 * n
    scored = state.round_no if state.phase in (ROUND_OVER, GAME_OVER) else state.round_no - 1
    assert len(state.history) == scored
    unpaid = before is not None and (before.pennies, before.spent) == (state.pennies, state.spent)
    if unpaid:
        assert before is not None and (before.bought == state.bought or state.phase == BUY)
    else:  # pennies moved: each player's count must follow from buys, payments and the pot
        for p in range(n):
            buys = sum(h.bought[p] for h in state.history)
            if state.phase not in (ROUND_OVER, GAME_OVER):
                buys += len(state.bought[p])
            paid = sum(h.paid[p] for h in state.history)
            won = state.result.share if state.result and p in state.result.winners else 0
            assert state.pennies[p] == 10 - buys - paid + won, "pennies don't reconcile"
    if state.phase in (BUY, OFFER, PLAY):
        assert all(state.hands), "a round goes on although a hand is empty"
        assert (state.offer is not None) == (state.phase == OFFER)
    if state.phase == OFFER:
        assert state.offer is not None
        assert ENGINE.scheduled(state) == Scheduled(
            float(state.options.buy_seconds), {"type": "pass"}, player=state.offer.player
        )
        assert state.pennies[state.offer.player] > 0 and state.offer.player != state.turn
        asked = (state.offer.player, *state.offer.queue)
        assert state.offer.discarder is None or state.offer.discarder not in asked
    else:
        assert ENGINE.scheduled(state) is None


def check_move(
    before: PenniesState, after: PenniesState, player: int, action: dict[str, Any]
) -> None:
    """The bookkeeping of one move."""
    kind = action["type"]
    hand_before, hand_after = len(before.hands[player]), len(after.hands[player])
    if kind == "buy":
        assert after.pennies[player] == before.pennies[player] - 1
        assert after.spent == before.spent + 1
        assert after.bought[player][-1] == before.discard[-1]
        # Two stock cards, the discard pile under the bought card rebuilding it if need be.
        assert hand_after == hand_before + 1 + min(2, len(before.stock) + len(before.discard) - 2)
    elif kind == "decline":
        assert hand_after == hand_before + 1  # the stock is always rebuilt when it runs out
        assert after.pennies == before.pennies
        by = before.last_move
        if after.offer is not None and by is not None and by.type == "discard":
            assert by.player not in (after.offer.player, *after.offer.queue)
    elif kind == "pass":
        assert after.hands == before.hands and after.pennies == before.pennies
    elif kind == "discard":
        back = len(after.last_move.returned) if after.last_move else 0
        assert hand_after == hand_before - 1 + back and after.discard[-1] == action["card"]
        assert not back or (not after.opened[player] and after.melds[player] == ())
    elif kind in ("meld", "lay_off"):
        on_table = sum(len(m.cards) for area in after.melds for m in area)
        was = sum(len(m.cards) for area in before.melds for m in area)
        assert hand_before - hand_after == on_table - was > 0
    if after.phase in (ROUND_OVER, GAME_OVER) and before.phase == PLAY:
        check_scoring(before, after)


def check_scoring(before: PenniesState, after: PenniesState) -> None:
    """Rule 10 (and 11 after round 7) from the hands left at the end of the round."""
    result = after.history[-1]
    n = after.players
    for p in range(n):
        hand = after.hands[p]
        assert result.points[p] == sum(card_points(c) for c in hand)
        assert result.cards_left[p] == len(hand)
        assert result.paid[p] == min(len(hand), before.pennies[p])
        assert result.paid[p] + result.shortfall[p] == len(hand)
    if result.went_out is not None:
        assert after.hands[result.went_out] == ()
    else:
        assert not after.stock and len(after.discard) == 1  # nothing left to rebuild from
    spent = before.spent + sum(result.paid)
    if after.phase == GAME_OVER:
        final = after.result
        assert final is not None
        totals = [sum(h.points[p] for h in after.history) for p in range(n)]
        assert list(final.totals) == totals
        assert final.winners == tuple(p for p in range(n) if totals[p] == min(totals))
        assert final.pot == spent and after.spent == spent % len(final.winners)
        assert ENGINE.outcome(after) is not None
    else:
        assert after.spent == spent and ENGINE.outcome(after) is None


# ------------------------------------------------------------------------------------ games


BOUNDED: list[tuple[int, int]] = []  # (seed, round) of every round that reached ROUND_BOUND


def play(players: int, seed: int, policies: list[Policy], options: dict[str, Any]) -> PenniesState:
    """One full game through the shared driver with every invariant checked after every action
    (between rounds, one player drawn at random deals on). A round that reaches
    ``ROUND_BOUND`` actions is recorded in ``BOUNDED`` and the game stops there."""
    state = ENGINE.new_game(players, options, seed)
    rng = random.Random(seed)
    check_state(state)
    steps = itertools.count()
    in_round = [0]

    def bounded(state: PenniesState) -> bool:
        return in_round[0] >= ROUND_BOUND

    def observe(
        state: PenniesState, player: int | None, action: dict[str, Any], after: PenniesState
    ) -> None:
        assert player is not None
        step = next(steps)
        in_round[0] = 0 if after.round_no != state.round_no else in_round[0] + 1
        check_state(after, state)
        check_move(state, after, player, action)
        # The view of whoever moves next (shared with the bot); a spectator's now and then.
        actors = ENGINE.to_act(after)
        check_view(after, actors[0] if actors and step % 5 else None)
        if after.phase != state.phase and after.phase in (ROUND_OVER, GAME_OVER) or step % 199 == 0:
            assert ENGINE.load(ENGINE.dump(after)) == after

    played = drive(
        ENGINE,
        state,
        policies,
        [rng] * players,
        pick=one_at_random(rng),
        observe=observe,
        stop=bounded,
        max_steps=7 * ROUND_BOUND,
    )
    assert played.ok, played.failure
    state = played.state
    if bounded(state):
        BOUNDED.append((seed, state.round_no))
        print(f"seed {seed}: round {state.round_no} reached {ROUND_BOUND} actions")
        return state
    assert state.result is not None and len(state.history) == 7
    return state


def rounds_played(state: PenniesState) -> int:
    """Rounds scored, plus a round stopped at the bound."""
    return len(state.history) + (state.phase != GAME_OVER)


def game_options(seed: int) -> dict[str, Any]:
    options: dict[str, Any] = {"buy_seconds": (5, 10, 15, 20)[seed % 4]}
    if seed % 5 == 0:
        options["chart"] = CUSTOM_CHART
    return options


@pytest.mark.slow
def test_bots_play_300_full_games_with_every_invariant() -> None:
    BOUNDED.clear()
    stalemates = rounds = 0
    for seed in range(BOT_GAMES):
        players = 2 + seed % 3
        final = play(players, seed, [bot] * players, game_options(seed))
        stalemates += sum(h.went_out is None for h in final.history)
        rounds += rounds_played(final)
    print(
        f"bot self-play: {BOT_GAMES} games, {rounds} rounds: {stalemates} ended with nobody "
        f"out, {len(BOUNDED)} reached {ROUND_BOUND} actions {BOUNDED}"
    )
    assert not BOUNDED  # bots always finish a round
    assert stalemates < BOT_GAMES * 7 // 100  # nearly always by going out


@pytest.mark.slow
def test_bot_beats_random_legal_players_in_at_least_90_percent_of_200_games() -> None:
    BOUNDED.clear()
    wins = 0
    for seed in range(RANDOM_GAMES):
        players = 2 + seed % 3
        seat = seed % players
        policies: list[Policy] = [random_legal] * players
        policies[seat] = bot
        final = play(players, 10_000 + seed, policies, game_options(seed))
        if final.result is None:
            continue  # a round reached the bound: reported below
        totals = final.result.totals
        wins += final.result.winners == (seat,) and totals[seat] < min(
            t for p, t in enumerate(totals) if p != seat
        )
    rate = wins / RANDOM_GAMES
    print(
        f"bot win rate against random-legal players: {wins}/{RANDOM_GAMES} = {rate:.1%}; "
        f"rounds that reached {ROUND_BOUND} actions: {BOUNDED}"
    )
    assert not BOUNDED  # the bot goes out, so no round goes on for ever
    assert rate >= 0.9
