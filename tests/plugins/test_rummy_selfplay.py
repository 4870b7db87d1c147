"""Rummy self-play: over 2,000 hands of bot, random-legal and mixed players with invariants
checked after every action (each card exactly once, hand sizes, scores reconcile with the cards
left, rummy only when earned, views and log lines never show hidden cards), and the bot's win
rate against random-legal players."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import msgpack
import msgspec
import pytest

from plugins.base import Rejection
from plugins.cards import STANDARD, card_name, points, sort_cards
from plugins.rummy import ENGINE, RummyState, choose_action
from plugins.rummy.rules import DRAW, GAME_OVER, HAND_OVER, PLAY, Move, deal_size
from plugins.simulate import Bot, drive, one_at_random, simulate

DECK = sorted(STANDARD)
# The view keys that may differ between players (everything else is public).
PERSONAL = ("player", "hand", "drawn", "out_card", "groups")
CODES = frozenset(STANDARD)
NAMES = ("Ana", "Ben", "Cy", "Dee")
# A policy gets the state, the player, an rng and the player's legal actions (never empty).
Policy = Callable[[RummyState, int, random.Random, list[dict[str, Any]]], dict[str, Any]]


def random_policy(
    state: RummyState, player: int, rng: random.Random, legal: list[dict[str, Any]]
) -> dict[str, Any]:
    return rng.choice(legal)


def eager_policy(
    state: RummyState, player: int, rng: random.Random, legal: list[dict[str, Any]]
) -> dict[str, Any]:
    """Random legal play that always melds or lays off when it can (hands end sooner)."""
    plays = [a for a in legal if a["type"] in ("meld", "lay_off")]
    return rng.choice(plays or legal)


def bot_policy(
    state: RummyState, player: int, rng: random.Random, legal: list[dict[str, Any]]
) -> dict[str, Any]:
    action = choose_action(ENGINE, state, player, rng)
    assert action is not None and action in legal, action
    return action


def mixed_policy(
    state: RummyState, player: int, rng: random.Random, legal: list[dict[str, Any]]
) -> dict[str, Any]:
    """The bot's move, but a random legal one a quarter of the time."""
    if rng.random() < 0.25:
        return rng.choice(legal)
    return bot_policy(state, player, rng, legal)


POLICIES: dict[str, Policy] = {
    "random": random_policy,
    "eager": eager_policy,
    "bot": bot_policy,
    "mixed": mixed_policy,
}


# --------------------------------------------------------------------------- invariants


class Tracker:
    """What the test itself knows about the hand being played, from the actions alone."""

    def __init__(self, state: RummyState) -> None:
        self.reset(state)

    def reset(self, state: RummyState) -> None:
        """A new hand was dealt."""
        self.sizes = [len(h) for h in state.hands]
        self.played_before = [False] * state.players
        self.played_now = False
        self.public: set[str] = set(state.discard)  # every card that has been face up
        self.history: list[Any] = []  # the history entries the views have shown so far

    def after(
        self, before: RummyState, player: int, action: dict[str, Any], state: RummyState
    ) -> None:
        kind = action["type"]
        if kind == "next_hand":
            self.reset(state)
            return
        if kind == "draw":
            self.sizes[player] += 1
        elif kind == "meld":
            self.sizes[player] -= len(action["cards"])
            self.played_now = True
        elif kind == "lay_off":
            self.sizes[player] -= 1
            self.played_now = True
        elif kind == "discard":
            self.sizes[player] -= 1
            if state.phase == DRAW:
                self.played_before[player] |= self.played_now
                self.played_now = False
        self.public |= set(state.discard) | {c for m in state.melds for c in m}


def check_cards(state: RummyState) -> None:
    places = [*state.stock, *state.discard]
    for h in state.hands:
        places.extend(h)
    for m in state.melds:
        places.extend(m)
    if state.out_card is not None:
        places.append(state.out_card)
    assert sorted(places) == DECK, "a card is lost or in two places"


def check_sizes(state: RummyState, tracker: Tracker) -> None:
    sizes = [len(h) for h in state.hands]
    assert sizes == tracker.sizes
    k = deal_size(state.players)
    if state.phase in (DRAW, PLAY):
        most = [k + 1 if state.phase == PLAY and p == state.turn else k for p in range(len(sizes))]
        assert all(1 <= n <= m for n, m in zip(sizes, most, strict=True)), (sizes, state.phase)
        assert state.stock or state.phase == PLAY, "a turn never starts with an empty stock"


def check_scores(state: RummyState) -> None:
    totals = [0] * state.players
    for r in state.results:
        assert list(r.values) == [sum(points(c) for c in h) for h in r.left]
        if r.winner is None:
            assert r.points == 0 and not r.rummy and all(r.left)
            continue
        assert r.left[r.winner] == () and all(h for p, h in enumerate(r.left) if p != r.winner)
        assert r.points == sum(r.values) * (2 if r.rummy else 1)
        totals[r.winner] += r.points
    assert list(state.scores) == totals
    target = state.options.target
    assert (state.phase == GAME_OVER) == (max(state.scores) >= target)


def check_hand_end(before: RummyState, state: RummyState, tracker: Tracker, player: int) -> None:
    """A hand just ended: by going out (rummy exactly when earned) or by a stalemate."""
    res = state.results[-1]
    assert res.left == state.hands and res.hand_no == state.hand_no
    if res.winner is None:
        # Rule 7: the second run-out (or a pile with nothing under its top card).
        assert state.stock == () and (before.reshuffles == 1 or len(state.discard) <= 1)
        return
    assert res.winner == player
    assert res.rummy == (not tracker.played_before[player])


def check_views(state: RummyState, tracker: Tracker) -> None:
    """No view shows a card its viewer may not see: the stock, a face-down last discard, or
    (mid-hand) another player's cards that were never face up.

    The spectator's view is searched whole (the move history is public and only ever grows, so
    only its new entries). A player's view may differ from it only in its personal keys, which
    are searched against what that player may not see."""
    over = state.phase in (HAND_OVER, GAME_OVER)
    winner = state.results[-1].winner if over else None
    stock = set(state.stock) - tracker.public
    unseen = [set() if over else set(hand) - tracker.public for hand in state.hands]
    face_down = set() if state.out_card is None else {state.out_card} - tracker.public

    public = ENGINE.view(state, None)
    history = public["history"]
    assert history[: len(tracker.history)] == tracker.history
    searched = {**public, "history": history[len(tracker.history) :]}
    tracker.history = history
    seen = CODES.intersection(msgspec.json.encode(searched).decode().split('"'))
    hidden = stock | face_down | set().union(*unseen)
    assert not seen & hidden, f"a spectator sees {seen & hidden}"
    shown = [
        public[k]
        for k in ("hand", "player", "hand_counts", "stock_count", "discard_pile", "melds", "to_act")
    ]
    assert shown == [
        None,
        None,
        [len(h) for h in state.hands],
        len(state.stock),
        list(state.discard),
        [list(m) for m in state.melds],
        ENGINE.to_act(state),
    ]

    for viewer in range(state.players):
        view = ENGINE.view(state, viewer)
        assert {k: v for k, v in view.items() if k not in PERSONAL} == {
            k: v for k, v in public.items() if k not in PERSONAL
        }
        personal = {k: view[k] for k in PERSONAL}
        seen = CODES.intersection(msgspec.json.encode(personal).decode().split('"'))
        hidden = set(stock)
        if viewer != winner:
            hidden |= face_down
        for p, cards in enumerate(unseen):
            if p != viewer:
                hidden |= cards
        assert not seen & hidden, f"player {viewer} sees {seen & hidden}"
        assert (view["hand"], view["player"]) == (list(state.hands[viewer]), viewer)


def check_log_line(
    before: RummyState, player: int, action: dict[str, Any], state: RummyState
) -> None:
    line = ENGINE.describe(before, player, action, NAMES)
    assert line.startswith(NAMES[player]) and line.endswith(".")
    if action["type"] == "draw" and action["source"] == "stock":
        assert card_name(state.drawn or "") not in line
    if state.out_card is not None and before.out_card is None:
        assert card_name(state.out_card) not in line


# --------------------------------------------------------------------------- driver


def as_bot(policy: Policy) -> Bot:
    """A test policy as a bot for the shared driver: it gets the player's legal actions, and
    mid-hand the player asked is the only one who may act."""

    def bot(engine: Any, state: RummyState, player: int, rng: random.Random) -> dict[str, Any]:
        if state.phase != HAND_OVER:
            assert ENGINE.to_act(state) == [state.turn] == [player]
            for other in range(state.players):
                if other != player:
                    assert ENGINE.legal_actions(state, other) == []
        legal = ENGINE.legal_actions(state, player)
        assert legal
        action = policy(state, player, rng, legal)
        assert action in legal
        return action

    return bot


def play(
    lineup: tuple[str, ...], seed: int, max_hands: int, options: dict[str, Any] | None = None
) -> tuple[RummyState, int, int]:
    """Play one game (or ``max_hands`` hands) through the shared driver, checking every
    invariant after every action (anyone may start the next hand: one is drawn at random);
    returns the last state, the hands finished and the actions made."""
    rng = random.Random(seed)
    state = ENGINE.new_game(len(lineup), options or {}, seed)
    tracker = Tracker(state)
    hands = actions = 0
    check_cards(state)
    check_views(state, tracker)

    def observe(
        state: RummyState, player: int | None, action: dict[str, Any], after: RummyState
    ) -> None:
        nonlocal hands, actions
        assert player is not None
        actions += 1
        tracker.after(state, player, action, after)
        check_cards(after)
        check_sizes(after, tracker)
        check_views(after, tracker)
        check_log_line(state, player, action, after)
        if len(after.results) > len(state.results):
            hands += 1
            check_hand_end(state, after, tracker, player)
            check_scores(after)
            data = msgpack.unpackb(msgpack.packb(ENGINE.dump(after)))
            assert ENGINE.load(data) == after
        elif actions % 37 == 0:
            assert ENGINE.load(ENGINE.dump(after)) == after

    bots = [as_bot(POLICIES[name]) for name in lineup]
    played = drive(
        ENGINE,
        state,
        bots,
        [rng] * len(lineup),
        pick=one_at_random(rng),
        observe=observe,
        stop=lambda s: s.phase == HAND_OVER and hands >= max_hands,
    )
    assert played.ok, played.failure
    assert played.steps == actions
    return played.state, hands, actions


# Lineups and how many hands each plays: bots, mixes and random-legal players, 2-4 players.
RUNS = [
    ("bot", "bot"),
    ("bot", "bot", "bot"),
    ("bot", "bot", "bot", "bot"),
    ("bot", "random"),
    ("mixed", "eager", "bot"),
    ("eager", "mixed", "eager", "mixed"),
    ("eager", "eager"),
    ("random", "random", "random"),
]
HANDS = {
    ("bot", "bot"): 650,
    ("bot", "bot", "bot"): 250,
    ("bot", "bot", "bot", "bot"): 200,
    ("bot", "random"): 470,
    ("mixed", "eager", "bot"): 200,
    ("eager", "mixed", "eager", "mixed"): 110,
    ("eager", "eager"): 80,
    ("random", "random", "random"): 40,
}


@pytest.mark.slow
@pytest.mark.parametrize("lineup", RUNS, ids=["-".join(r) for r in RUNS])
def test_self_play_invariants(lineup: tuple[str, ...]) -> None:
    goal = HANDS[lineup]
    hands = games = 0
    outcomes = {"rummy": 0, "out": 0, "stalemate": 0}
    while hands < goal:
        seed = 1000 * len(lineup) + games
        options = {"target": (100, 150, 200, 250, 500)[games % 5]}
        state, played, _ = play(lineup, seed, goal - hands, options)
        hands += played
        games += 1
        for r in state.results:
            kind = "stalemate" if r.winner is None else "rummy" if r.rummy else "out"
            outcomes[kind] += 1
        if state.phase == GAME_OVER:
            out = ENGINE.outcome(state)
            assert out is not None and out.winners == (state.results[-1].winner,)
    assert hands >= goal
    if "random" not in lineup:
        assert outcomes["out"] + outcomes["rummy"] > 0


def test_self_play_plan_covers_at_least_2000_hands() -> None:
    assert set(HANDS) == set(RUNS) and sum(HANDS.values()) >= 2000


@pytest.mark.slow
def test_bot_beats_random_legal_players() -> None:
    """The bot (player 0) against random-legal players: at least 90% of games won."""
    rates = {}
    for players in (2, 3, 4):
        report = simulate(ENGINE, choose_action, 60, 77 + players, players=players)
        assert not report.failures, report.failures[:3]
        assert report.finished == 60
        rates[players] = report.win_rate
    print(f"bot win rate against random-legal players: {rates}")
    assert all(rate >= 0.9 for rate in rates.values()), rates


def test_bot_is_deterministic_and_reads_only_its_view() -> None:
    state = ENGINE.new_game(3, {}, 5)
    state = ENGINE.apply(state, state.turn, {"type": "draw", "source": "stock"})
    assert not isinstance(state, Rejection) and state.turn is not None
    p = state.turn
    a = choose_action(ENGINE, state, p, random.Random(1))
    assert a == choose_action(ENGINE, state, p, random.Random(1))
    # Shuffling the cards the player cannot see changes nothing.
    others = [q for q in range(3) if q != p]
    pool = [c for q in others for c in state.hands[q]] + list(state.stock)
    random.Random(2).shuffle(pool)
    sizes = [len(state.hands[q]) for q in others]
    hands = list(state.hands)
    for q, size in zip(others, sizes, strict=True):
        hands[q], pool = tuple(sorted(pool[:size], key=STANDARD.index)), pool[size:]
    other_world = msgspec.structs.replace(state, hands=tuple(hands), stock=tuple(pool))
    assert choose_action(ENGINE, other_world, p, random.Random(1)) == a
    assert choose_action(ENGINE, state, (p + 1) % 3, random.Random(1)) is None


def test_bot_takes_a_discard_that_makes_a_meld_and_discards_safely() -> None:
    base = ENGINE.new_game(2, {}, 1)
    s = msgspec.structs.replace(
        base,
        hands=(
            tuple(sort_cards(["C5", "D5", "H9", "S13", "D2", "D11", "H2", "S4", "S7", "D10"])),
            base.hands[1],
        ),
        turn=0,
        phase=DRAW,
    )
    rest = [c for c in STANDARD if c not in s.hands[0] and c != "H5"]
    s = msgspec.structs.replace(
        s, hands=(s.hands[0], tuple(rest[:10])), discard=("H5",), stock=tuple(rest[10:])
    )
    assert choose_action(ENGINE, s, 0, random.Random(0)) == {"type": "draw", "source": "discard"}
    s = ENGINE.apply(s, 0, {"type": "draw", "source": "discard"})
    assert not isinstance(s, Rejection)
    meld = choose_action(ENGINE, s, 0, random.Random(0))
    assert meld == {"type": "meld", "cards": ["C5", "D5", "H5"]}
    s = ENGINE.apply(s, 0, meld)
    assert not isinstance(s, Rejection)
    # Highest deadwood with no partner: the king of spades (the 10 and jack of diamonds stay).
    assert choose_action(ENGINE, s, 0, random.Random(0)) == {"type": "discard", "card": "S13"}


def test_bot_keeps_a_card_the_next_player_is_collecting() -> None:
    """Ben took the 8 of hearts from the discard pile: Ana keeps her 9 of hearts and throws the
    6 of clubs instead, though the 9 is worth more."""
    mine, his = ("C6", "D3", "H9", "S2"), ("C10", "D12", "H8", "S5")
    rest = [c for c in STANDARD if c not in mine + his]
    base = ENGINE.new_game(2, {}, 1)
    s = msgspec.structs.replace(
        base,
        hands=(mine, his),
        stock=tuple(rest[1:]),
        discard=(rest[0],),
        turn=0,
        phase=PLAY,
        drawn="S2",
        drawn_from="stock",
    )
    assert choose_action(ENGINE, s, 0, random.Random(0)) == {"type": "discard", "card": "H9"}
    took = (
        Move(1, "draw", "discard", "H8"),
        Move(1, "discard", card="C10"),
        Move(0, "draw", "stock"),
    )
    s = msgspec.structs.replace(s, moves=took)
    assert choose_action(ENGINE, s, 0, random.Random(0)) == {"type": "discard", "card": "C6"}
