"""Gin Rummy self-play: thousands of hands of bot and random legal play with invariants checked
after every action (cards conserved, scores add up, views never leak hidden cards) and the
contract v2 answers checked against each other (to_act against legal_actions, log lines name
only public cards, load(dump(s)) == s, the scoreboard adds up, reveal and outcome appear
exactly when they should)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import msgspec
import pytest
from msgspec.structs import replace

from plugins.base import Rejection
from plugins.cards import card_name, sort_cards
from plugins.cards import deck as full_deck
from plugins.gin_rummy import ENGINE, GinRummy, GinState
from plugins.gin_rummy.bot import choose_action
from plugins.gin_rummy.rules import DISCARD, DRAW, GAME_OVER, HAND_OVER, LAYOFF, UPCARD
from plugins.simulate import Bot, drive, one_at_random

DECK = set(full_deck())
NAMES = ["Ana", "Ben"]
BY_NAME = {card_name(c): c for c in DECK}
CARD_NAME = re.compile(r"\b(?:ace|[2-9]|10|jack|queen|king) of (?:clubs|diamonds|hearts|spades)\b")
# A policy gets the state, its seat, an rng and the seat's legal actions (never empty).
Policy = Callable[[GinState, int, random.Random, list[dict[str, Any]]], dict[str, Any]]


def strings(view: Any) -> set[str]:
    """Every card code appearing anywhere in a view (as a key or a value)."""
    return DECK.intersection(msgspec.json.encode(view).decode().split('"'))


def random_policy(
    state: GinState, seat: int, rng: random.Random, legal: list[dict[str, Any]]
) -> dict[str, Any]:
    return rng.choice(legal)


def eager_random_policy(
    state: GinState, seat: int, rng: random.Random, legal: list[dict[str, Any]]
) -> dict[str, Any]:
    """Random legal play that always ends the hand when it can (so lay-offs get exercised)."""
    enders = [a for a in legal if a["type"] in ("knock", "big_gin")]
    return rng.choice(enders or legal)


def mixed_policy(
    state: GinState, seat: int, rng: random.Random, legal: list[dict[str, Any]]
) -> dict[str, Any]:
    """The bot's move, but a random legal one a third of the time."""
    if rng.random() < 1 / 3:
        return rng.choice(legal)
    return bot_policy(state, seat, rng, legal)


def bot_policy(
    state: GinState, seat: int, rng: random.Random, legal: list[dict[str, Any]]
) -> dict[str, Any]:
    action = choose_action(ENGINE, state, seat, rng)
    assert action is not None
    return action


def random_options(rng: random.Random) -> dict[str, Any]:
    return {o.name: rng.choice(o.choices) for o in GinRummy.info.options}


# --------------------------------------------------------------------------- invariants


def check_cards(state: GinState) -> None:
    places = [*state.hands[0], *state.hands[1], *state.stock, *state.discard]
    if state.knock is not None:
        places += [lo.card for lo in state.knock.layoffs]
        if state.knock.discard is not None:
            places.append(state.knock.discard)
    assert len(places) == 52 and set(places) == DECK, "cards lost or duplicated"

    sizes = [len(h) for h in state.hands]
    if state.phase in (UPCARD, DRAW):
        assert sizes == [10, 10]
    elif state.phase == DISCARD:
        assert state.turn is not None
        assert sizes[state.turn] == 11 and sizes[1 - state.turn] == 10
    elif state.phase == LAYOFF:
        assert state.knock is not None
        k = state.knock.knocker
        assert sizes[k] == 10 and sizes[1 - k] == 10 - len(state.knock.layoffs)
        assert sorted(state.hands[k]) == sorted(
            [c for m in state.knock.melds for c in m] + list(state.knock.deadwood)
        )


def check_scores(state: GinState) -> None:
    opts = state.options
    for seat in (0, 1):
        assert state.scores[seat] == sum(h.points for h in state.history if h.winner == seat)
        assert state.hands_won[seat] == sum(1 for h in state.history if h.winner == seat)
    assert state.draws == sum(1 for h in state.history if h.kind == "draw")
    for h in state.history:
        if h.kind == "draw":
            assert h.winner is None and h.points == 0
            continue
        assert h.knocker is not None
        k, d = h.knocker, 1 - h.knocker
        kd, dd = h.seats[k].points, h.seats[d].points
        expected = {
            "knock": (k, dd - kd),
            "gin": (k, opts.gin_bonus + dd),
            "big_gin": (k, opts.big_gin_bonus + dd),
            "undercut": (d, opts.undercut_bonus + kd - dd),
        }[h.kind]
        assert (h.winner, h.points) == expected
        if h.kind == "knock":
            assert 0 < kd <= opts.knock_limit and dd > kd
        if h.kind == "undercut":
            assert dd <= kd
        if h.kind in ("gin", "big_gin"):
            assert kd == 0 and h.layoffs == ()
    if state.phase != GAME_OVER:
        assert max(state.scores) < opts.target and state.game_result is None
        return
    g = state.game_result
    assert g is not None and state.scores[g.reached_target] >= opts.target
    assert g.hand_points == state.scores and g.hands_won == state.hands_won
    assert g.shutout == (state.hands_won[1 - g.reached_target] == 0 and state.draws == 0)
    for seat in (0, 1):
        doubled = g.shutout and seat == g.reached_target
        assert g.counted_hand_points[seat] == state.scores[seat] * (2 if doubled else 1)
        assert g.line_bonus[seat] == 25 * state.hands_won[seat]
        assert g.game_bonus[seat] == (100 if seat == g.reached_target else 0)
        assert (
            g.totals[seat] == g.counted_hand_points[seat] + g.game_bonus[seat] + g.line_bonus[seat]
        )
    best = max(g.totals)
    assert g.winner == (None if g.totals[0] == g.totals[1] else g.totals.index(best))


def check_views(state: GinState, known: tuple[set[str], set[str]]) -> None:
    """No view shows the stock, or an opponent's cards that were never shown in public."""
    ended = state.phase in (HAND_OVER, GAME_OVER)
    for viewer in (0, 1, None):
        view = ENGINE.view(state, viewer)
        if not ended and view["last_result"] is not None:
            assert view["last_result"]["hand_no"] < state.hand_no  # an earlier, finished hand
            del view["last_result"]  # a fresh dict: ours to change
        seen = strings(view)
        assert not seen & set(state.stock), "stock leaked"
        assert view["stock_count"] == len(state.stock)
        assert view["hand_counts"] == [len(h) for h in state.hands]
        if viewer is not None:
            assert view["hand"] == list(state.hands[viewer])
        if ended:
            continue
        for opp in (0, 1):
            if opp == viewer:
                continue
            if state.knock is not None and state.knock.knocker == opp:
                # The knocker's melds and deadwood are laid out; the discard is face down.
                assert state.knock.discard not in seen
                continue
            hidden = set(state.hands[opp]) - known[opp]
            assert not seen & hidden, f"seat {viewer} sees {seen & hidden} of seat {opp}"


def public_cards(state: GinState) -> set[str]:
    """Cards every player has seen face up and knows where they are."""
    out = set(state.discard) | set(state.picked[0]) | set(state.picked[1])
    if state.knock is not None:
        out |= {c for m in state.knock.melds for c in m} | set(state.knock.deadwood)
        out |= {lo.card for lo in state.knock.layoffs}
    if state.phase in (HAND_OVER, GAME_OVER):
        out |= set(state.hands[0]) | set(state.hands[1])
        if state.knock is not None and state.knock.discard is not None:
            out.add(state.knock.discard)
    return out


def check_contract(before: GinState, seat: int, action: dict[str, Any], after: GinState) -> None:
    """The v2 answers for ``after``, reached by ``seat`` playing ``action`` on ``before``."""
    line = ENGINE.describe(before, seat, action, NAMES)
    assert line.startswith(NAMES[seat]) and "tried" not in line
    named = {BY_NAME[n] for n in CARD_NAME.findall(line)}
    assert named <= public_cards(after), f"{line!r} names a hidden card"
    assert ENGINE.load(ENGINE.dump(after)) == after
    to_act = ENGINE.to_act(after)
    assert to_act == [p for p in (0, 1) if ENGINE.legal_actions(after, p)]
    assert ENGINE.scheduled(after) is None
    status = ENGINE.status(after, NAMES)
    assert status and status[0].isupper()
    board = ENGINE.scoreboard(after, NAMES)
    for col in (0, 1):
        assert sum(int(cells[col]) for _, cells in board.rows) == board.totals[col]
    ended = after.phase in (HAND_OVER, GAME_OVER)
    lines = ENGINE.reveal(after)
    assert (lines is not None) == ended
    if lines is not None:
        for rl in lines:
            cards = [c for m in rl.melds for c in m] + list(rl.cards)
            assert len(cards) == len(set(cards)) and set(cards) <= DECK
    outcome = ENGINE.outcome(after)
    assert (outcome is None) == (after.phase != GAME_OVER)
    if outcome is not None:
        g = after.game_result
        assert g is not None and outcome.scores == g.totals
        assert outcome.winners == ((0, 1) if g.winner is None else (g.winner,))
        assert len(board.rows) == len(after.history) + 2 + g.shutout
    else:
        assert len(board.rows) == len(after.history) and board.totals == after.scores


# --------------------------------------------------------------------------- driver


def as_bot(policy: Policy) -> Bot:
    """A test policy as a bot for the shared driver: it gets the seat's legal actions, and the
    seat asked must be the only one with any (the one whose turn it is), except between hands."""

    def bot(engine: Any, state: GinState, seat: int, rng: random.Random) -> dict[str, Any]:
        if state.phase == LAYOFF:
            assert state.knock is not None and state.turn == 1 - state.knock.knocker
            assert seat == state.turn
        elif state.phase != HAND_OVER:
            assert state.turn == seat and not ENGINE.legal_actions(state, 1 - seat)
        legal = ENGINE.legal_actions(state, seat)
        action = policy(state, seat, rng, legal)
        # The bot may add its own "melds" to a legal knock (a valid action of the same type).
        assert action in legal or {"type": "knock", "card": action.get("card")} in legal
        return action

    return bot


def play(
    policies: tuple[Policy, Policy],
    seed: int,
    max_hands: int,
    options: dict[str, Any] | None = None,
) -> tuple[GinState, int]:
    """Play one game (or ``max_hands`` hands) through the shared driver, checking every
    invariant after every action; either player may deal on (one drawn at random)."""
    rng = random.Random(seed)
    state = ENGINE.new_game(2, options or {}, seed)
    known: tuple[set[str], set[str]] = (set(), set())
    hands = 1
    check_cards(state)

    def observe(state: GinState, seat: int | None, action: dict[str, Any], out: GinState) -> None:
        nonlocal known, hands
        assert seat is not None
        check_contract(state, seat, action, out)
        if action["type"] == "next_hand":
            known = (set(), set())
            hands += 1
            assert out.hand_no == state.hand_no + 1 and out.dealer == 1 - state.dealer
        if out.drawn_from in ("upcard", "discard") and out.drawn is not None:
            known[seat].add(out.drawn)  # taking a face-up card is public
        if out.history != state.history or out.phase == GAME_OVER:
            check_scores(out)
        else:
            assert out.scores == state.scores and out.hands_won == state.hands_won
        check_cards(out)
        check_views(out, known)

    played = drive(
        ENGINE,
        state,
        [as_bot(p) for p in policies],
        [rng, rng],
        pick=one_at_random(rng),
        observe=observe,
        stop=lambda s: s.phase == HAND_OVER and hands >= max_hands,
    )
    assert played.ok, played.failure
    return played.state, hands


def _play_many(
    policies: tuple[Policy, Policy], seed: int, want_hands: int, max_hands: int
) -> dict[str, int]:
    rng = random.Random(seed)
    kinds: dict[str, int] = {}
    played = 0
    games = 0
    while played < want_hands:
        state, hands = play(policies, rng.randrange(10**9), max_hands, random_options(rng))
        played += hands
        games += 1
        for h in state.history:
            kinds[h.kind] = kinds.get(h.kind, 0) + 1
        if state.phase == GAME_OVER:
            kinds["game_over"] = kinds.get("game_over", 0) + 1
    kinds["hands"] = played
    return kinds


@pytest.mark.slow
def test_selfplay_bot_vs_bot() -> None:
    # 500 hands here with every invariant; test_gin_bot plays ~2,800 more bot-vs-bot hands.
    kinds = _play_many((bot_policy, bot_policy), 1, want_hands=500, max_hands=40)
    assert kinds["hands"] >= 500
    # Bots knock, go gin, get undercut and finish whole games.
    assert kinds.get("knock", 0) > 250 and kinds.get("gin", 0) > 60
    assert kinds.get("undercut", 0) > 5 and kinds.get("game_over", 0) > 10


@pytest.mark.slow
def test_selfplay_random_legal_play() -> None:
    kinds = _play_many((random_policy, random_policy), 2, want_hands=250, max_hands=6)
    assert kinds["hands"] >= 250
    assert kinds.get("draw", 0) > 100  # random play nearly always runs the stock down (rule 10)


@pytest.mark.slow
def test_selfplay_mixed_bot_and_random_moves() -> None:
    kinds = _play_many((mixed_policy, mixed_policy), 3, want_hands=350, max_hands=30)
    assert kinds["hands"] >= 350
    assert kinds.get("knock", 0) > 100 and kinds.get("undercut", 0) > 3
    assert kinds.get("draw", 0) > 10 and kinds.get("game_over", 0) > 5


@pytest.mark.slow
def test_selfplay_bot_vs_eager_random() -> None:
    kinds = _play_many((bot_policy, eager_random_policy), 4, want_hands=300, max_hands=25)
    assert kinds["hands"] >= 300 and kinds.get("game_over", 0) > 5


# --------------------------------------------------------------------------- the bot


def test_bot_beats_random_play() -> None:
    rng = random.Random(8)
    wins = 0
    games = 20
    for i in range(games):
        bot_seat = i % 2
        policies = (bot_policy, random_policy) if bot_seat == 0 else (random_policy, bot_policy)
        state, _ = play(policies, rng.randrange(10**9), max_hands=200)
        assert state.game_result is not None
        wins += state.game_result.winner == bot_seat
    assert wins >= 18


def test_bot_only_uses_what_its_seat_may_see() -> None:
    """Reshuffling the cards the bot cannot see changes neither its view nor its move."""
    rng = random.Random(12)
    state = ENGINE.new_game(2, {}, 12)
    checked = 0
    for _ in range(600):
        if state.phase == GAME_OVER:
            state = ENGINE.new_game(2, {}, rng.randrange(10**6))
        seat = next(s for s in (0, 1) if ENGINE.legal_actions(state, s))
        if state.phase not in (HAND_OVER, LAYOFF):
            view = ENGINE.view(state, seat)
            opp = 1 - seat
            pool = (set(state.hands[opp]) | set(state.stock)) - strings(view)
            cards = sorted(pool)
            shuffled = cards[:]
            rng.shuffle(shuffled)
            swap = dict(zip(cards, shuffled, strict=True))
            moved = tuple(sort_cards(swap.get(c, c) for c in state.hands[opp]))
            hands = (state.hands[0], moved) if opp == 1 else (moved, state.hands[1])
            other = replace(state, hands=hands, stock=tuple(swap.get(c, c) for c in state.stock))
            assert other != state or not pool
            assert ENGINE.view(other, seat) == view
            a = choose_action(ENGINE, state, seat, random.Random(checked))
            b = choose_action(ENGINE, other, seat, random.Random(checked))
            assert a == b
            checked += 1
        action = choose_action(ENGINE, state, seat, rng)
        assert action is not None
        nxt = ENGINE.apply(state, seat, action)
        assert not isinstance(nxt, Rejection)
        state = nxt
    assert checked > 300


def test_bot_takes_gin_and_lays_off() -> None:
    # Seat 0 can go Gin by discarding H5; the bot must do so.
    melds = ["S4", "S5", "S6", "C7", "D7", "H7", "D10", "D11", "D12", "D13"]
    defender = ["C9", "H9", "S9", "H1", "H2", "H3", "H4", "S3", "C8", "C1"]
    rest = [c for c in full_deck() if c not in {*melds, *defender, "H5"}]
    base = ENGINE.new_game(2, {}, 0)
    s = replace(
        base,
        hands=(tuple(sorted([*melds, "H5"], key=full_deck().index)), tuple(defender)),
        stock=tuple(rest[1:]),
        discard=(rest[0],),
        phase=DISCARD,
        turn=0,
        drawn="H5",
        drawn_from="stock",
    )
    assert choose_action(ENGINE, s, 0, random.Random(0)) == {"type": "knock", "card": "H5"}
    # Knocking with H5 kept instead (discard D13) leaves deadwood 5: the defender lays off S3.
    k = ENGINE.apply(s, 0, {"type": "knock", "card": "D13"})
    assert not isinstance(k, Rejection) and k.phase == LAYOFF
    a = choose_action(ENGINE, k, 1, random.Random(0))
    assert a == {"type": "lay_off", "card": "S3", "meld": 2}
    assert choose_action(ENGINE, k, 0, random.Random(0)) is None
