"""Spades self-play: over 2,000 deals of random-legal, bot and mixed play with invariants checked
after every action (each card exactly once, hand sizes, follow suit, trick winners, 13 tricks a
deal, scores reconciling with bids and tricks, private views, to_act agreeing with the legal
actions, dump/load round trips), and the bot's win rate against random-legal players."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from plugins.base import Rejection
from plugins.cards import STANDARD
from plugins.simulate import Bot, drive, simulate
from plugins.spades import ENGINE, SpadesState, choose_action
from plugins.spades.rules import (
    BIDDING,
    DEAL_OVER,
    EXCHANGE,
    GAME_OVER,
    PLAYING,
    TRICK_DONE,
    game_winner,
    score_deal,
    sort_hand,
)

DECK = frozenset(STANDARD)
RANK = {c: (14 if c[1:] == "1" else int(c[1:])) for c in STANDARD}
# A policy gets the state, the player, an rng and the player's legal actions (never empty).
Policy = Callable[[SpadesState, int, random.Random, list[dict[str, Any]]], "dict[str, Any] | None"]


def random_policy(
    state: SpadesState, player: int, rng: random.Random, legal: list[dict[str, Any]]
) -> dict[str, Any]:
    return rng.choice(legal)


def bot_policy(
    state: SpadesState, player: int, rng: random.Random, legal: list[dict[str, Any]]
) -> dict[str, Any] | None:
    action = choose_action(ENGINE, state, player, rng)
    if action is not None:
        assert action in legal, f"the bot chose {action}, which is not legal"
    return action


def mixed_policy(
    state: SpadesState, player: int, rng: random.Random, legal: list[dict[str, Any]]
) -> dict[str, Any] | None:
    if rng.random() < 0.3:
        return rng.choice(legal)
    return bot_policy(state, player, rng, legal)


CARD_TOKEN = re.compile(rb'"([CDHS]1?[0-9])"')


def view_cards(view: dict[str, Any]) -> set[str]:
    """Every card code anywhere in the view (as a JSON string, key or value)."""
    found = {m.decode() for m in CARD_TOKEN.findall(msgspec.json.encode(view))}
    return found & DECK


PRIVATE_KEYS = ("player", "hand", "hand_hidden", "exchange")


def _without_private(view: dict[str, Any]) -> dict[str, Any]:
    rest = dict(view)
    for key in PRIVATE_KEYS:
        del rest[key]
    return rest


def winner_of(leader: int, cards: tuple[str, ...]) -> int:
    """An independent rule 9: the highest spade, else the highest card of the suit led."""
    spades = [(RANK[c], i) for i, c in enumerate(cards) if c[0] == "S"]
    led = [(RANK[c], i) for i, c in enumerate(cards) if c[0] == cards[0][0]]
    return (leader + max(spades or led)[1]) % 4


class Checker:
    """Checks every transition and counts what it saw."""

    def __init__(self) -> None:
        self.actions = 0
        self.deals = 0
        self.games_won = 0
        self.tricks = 0
        self.blind_nils = 0
        self.phases: set[str] = set()
        self.reconciled: tuple[Any, ...] = ()

    def state(self, s: SpadesState) -> None:
        self.phases.add(s.phase)
        places = [c for h in s.hands for c in h] + list(s.trick)
        places += [c for t in s.tricks for c in t.cards]
        assert len(places) == 52 and set(places) == DECK, "a card was lost or duplicated"
        sizes = [len(h) for h in s.hands]
        if s.phase == BIDDING or (s.phase == EXCHANGE and s.exchange and not s.exchange.given):
            assert sizes == [13] * 4
        elif s.phase == EXCHANGE:
            assert s.exchange is not None
            assert sizes[s.exchange.blind] == 15 and sizes[s.exchange.partner] == 11
        elif s.phase in (PLAYING, TRICK_DONE):
            assert s.leader is not None
            for i in range(4):
                p = (s.leader + i) % 4
                assert sizes[p] == 13 - len(s.tricks) - (i < len(s.trick))
        else:
            assert sizes == [0] * 4 and len(s.tricks) == 13
        if s.phase in (BIDDING, EXCHANGE):  # hands dealt or exchanged: kept in display order
            assert all(h == sort_hand(h) for h in s.hands)
        # Scores reconcile with every deal's bids and tricks through the scoring function
        # (replayed whenever the history changes).
        if s.history != self.reconciled:
            scores, bags = (0, 0), (0, 0)
            for d in s.history:
                assert sum(d.tricks) == 13
                sides = score_deal(scores, bags, d.bids, d.tricks, d.blind)
                assert d.sides == sides
                scores, bags = (sides[0].score, sides[1].score), (sides[0].bags, sides[1].bags)
                assert all(0 <= b < 10 for b in bags)
            assert (s.scores, s.bags) == (scores, bags)
            self.reconciled = s.history
        else:
            assert not s.history or (s.scores, s.bags) == (
                tuple(x.score for x in s.history[-1].sides),
                tuple(x.bags for x in s.history[-1].sides),
            )
        over = game_winner(s.scores, s.options.target)
        assert (s.phase == GAME_OVER) == (over is not None) == (ENGINE.outcome(s) is not None)
        # to_act agrees with legal_actions.
        to_act = ENGINE.to_act(s)
        for p in range(4):
            assert bool(ENGINE.legal_actions(s, p)) == (p in to_act), (s.phase, p, to_act)
        assert (ENGINE.scheduled(s) is not None) == (s.phase == TRICK_DONE)
        # Views are private. The spectator's view holds only played cards; a player's view is
        # the spectator's plus the keys below, which hold only that player's own cards.
        public = {c for t in s.tricks for c in t.cards} | set(s.trick)
        spectator = ENGINE.view(s, None)
        assert spectator["phase"] == s.phase and spectator["to_act"] == to_act
        assert spectator["hand"] is None and spectator["player"] is None
        leaked = view_cards(spectator) - public
        assert not leaked, f"a spectator sees {leaked}"
        shared = _without_private(spectator)
        for viewer in range(4):
            view = ENGINE.view(s, viewer)
            assert _without_private(view) == shared
            assert view["player"] == viewer and view["hand_hidden"] == s.unseen[viewer]
            own: set[str] = set()
            if s.unseen[viewer]:
                assert view["hand"] is None
            else:
                own = set(s.hands[viewer])
                assert view["hand"] == list(s.hands[viewer])
            if view["exchange"] is not None:
                got = view["exchange"]["received"] or []
                assert set(got) <= own | public, f"player {viewer} sees {got}"
                assert set(view["exchange"]) == {"blind", "partner", "step", "received"}

    def transition(
        self, before: SpadesState, player: int | None, action: dict[str, Any], after: SpadesState
    ) -> None:
        self.actions += 1
        kind = action["type"]
        if kind == "play":
            assert player is not None
            card = action["card"]
            hand = before.hands[player]
            assert card in hand and card not in after.hands[player]
            if before.trick:
                led = before.trick[0][0]
                assert card[0] == led or all(c[0] != led for c in hand), "follow suit broken"
            else:
                played = [c for t in before.tricks for c in t.cards]
                if card[0] == "S" and not any(c[0] == "S" for c in played):
                    assert all(c[0] == "S" for c in hand), "spade led before spades broken"
            self._check_rejections(before, player, card)
        elif kind == "gather":
            self.tricks += 1
            assert player is None and len(before.trick) == 4 and before.leader is not None
            winner = winner_of(before.leader, before.trick)
            assert after.tricks[-1].winner == winner and after.tricks[-1].cards == before.trick
            if after.phase == PLAYING:
                assert after.turn == winner == after.leader
            else:
                self._deal_scored(before, after)
        elif kind == "bid" and action.get("blind"):
            self.blind_nils += 1
        if self.actions % 10 == 0 or after.phase in (DEAL_OVER, GAME_OVER, EXCHANGE):
            assert ENGINE.load(ENGINE.dump(after)) == after

    def _deal_scored(self, before: SpadesState, after: SpadesState) -> None:
        self.deals += 1
        assert len(after.tricks) == 13 and after.phase in (DEAL_OVER, GAME_OVER)
        taken = [0] * 4
        for t in after.tricks:
            taken[t.winner] += 1
        last = after.history[-1]
        assert list(last.tricks) == taken and list(last.bids) == list(before.bids)
        sides = score_deal(before.scores, before.bags, last.bids, taken, last.blind)
        assert after.scores == (sides[0].score, sides[1].score)
        if after.phase == GAME_OVER:
            self.games_won += 1
            outcome = ENGINE.outcome(after)
            assert outcome is not None and after.winner is not None
            assert after.scores[after.winner] >= after.options.target
            assert after.scores[after.winner] > after.scores[1 - after.winner]
            assert set(outcome.winners) == {after.winner, after.winner + 2}

    def _check_rejections(self, before: SpadesState, player: int, card: str) -> None:
        if self.actions % 7:
            return
        playable = set(ENGINE.playable(before, player))
        for other in before.hands[player]:
            if other not in playable:
                out = ENGINE.apply(before, player, {"type": "play", "card": other})
                assert isinstance(out, Rejection)
                assert out.code in ("must_follow_suit", "spades_not_broken")
        out = ENGINE.apply(before, (player + 1) % 4, {"type": "play", "card": card})
        assert isinstance(out, Rejection) and out.code in ("not_your_turn", "not_in_hand")


def as_bot(policy: Policy) -> Bot:
    """A test policy as a bot for the shared driver: it gets the player's legal actions."""

    def bot(
        engine: Any, state: SpadesState, player: int, rng: random.Random
    ) -> dict[str, Any] | None:
        return policy(state, player, rng, ENGINE.legal_actions(state, player))

    return bot


def play(
    policies: list[Policy], deals: int, seed: int, checker: Checker, max_deals: int = 10
) -> None:
    """Play through the shared driver until ``deals`` deals were scored; a game still going
    after ``max_deals`` deals (random players rarely finish one) is replaced by a new one. The
    players who may act are asked in turn order; the trick is gathered as scheduled."""
    rng = random.Random(seed)
    bots = [as_bot(p) for p in policies]

    def observe(
        before: SpadesState, player: int | None, action: dict[str, Any], after: SpadesState
    ) -> None:
        checker.transition(before, player, action, after)
        checker.state(after)

    def stop(state: SpadesState) -> bool:
        return state.deal_no > max_deals or (state.phase == DEAL_OVER and checker.deals >= deals)

    while checker.deals < deals:
        options = {"target": rng.choice((200, 300, 500)), "blind_nil": rng.random() < 0.6}
        state = ENGINE.new_game(4, options, rng.randrange(1 << 30))
        checker.state(state)
        played = drive(ENGINE, state, bots, [rng] * 4, observe=observe, stop=stop)
        assert played.ok, played.failure


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "lineup", "deals", "seed", "max_deals"),
    [
        ("random", "rrrr", 800, 1, 4),
        ("bots_vs_random", "brbr", 500, 2, 10),
        ("bots", "bbbb", 400, 3, 10),
        ("mixed", "mmmm", 300, 4, 10),
    ],
)
def test_self_play_invariants(
    name: str, lineup: str, deals: int, seed: int, max_deals: int
) -> None:
    """2,000 deals in all, every action checked."""
    table = {"r": random_policy, "b": bot_policy, "m": mixed_policy}
    checker = Checker()
    play([table[c] for c in lineup], deals, seed, checker, max_deals)
    assert checker.deals == deals and checker.tricks == 13 * deals
    assert checker.phases >= {BIDDING, PLAYING, TRICK_DONE, DEAL_OVER}
    if name == "random":
        assert EXCHANGE in checker.phases and checker.blind_nils > 0
    if name in ("bots_vs_random", "bots"):
        assert checker.games_won > 0 and GAME_OVER in checker.phases


@pytest.mark.slow
def test_bot_beats_random_legal_players() -> None:
    report = simulate(ENGINE, choose_action, 200, 2024)
    print(
        f"\nSpades bot side vs random-legal side: {report.bot_wins}/{report.finished} "
        f"({report.win_rate:.1%}), average scores {report.average_scores}"
    )
    assert not report.failures
    assert report.finished == 200 and report.win_rate >= 0.9


def test_bot_is_deterministic_and_reads_only_its_view() -> None:
    state = ENGINE.new_game(4, {}, 11)
    for _ in range(60):
        to_act = ENGINE.to_act(state)
        if not to_act:
            state = ENGINE.apply(state, None, {"type": "gather"})  # type: ignore[assignment]
            continue
        p = to_act[0]
        a = choose_action(ENGINE, state, p, random.Random(5))
        b = choose_action(ENGINE, state, p, random.Random(5))
        assert a == b and a in ENGINE.legal_actions(state, p)
        # Other players' hands reshuffled among themselves: the bot's choice stays the same.
        others = [q for q in range(4) if q != p]
        pool = [c for q in others for c in state.hands[q]]
        random.Random(p).shuffle(pool)
        hands = list(state.hands)
        for q in others:
            hands[q], pool = sort_hand(pool[: len(hands[q])]), pool[len(hands[q]) :]
        twin = msgspec.structs.replace(state, hands=tuple(hands))
        assert choose_action(ENGINE, twin, p, random.Random(5)) == a
        new = ENGINE.apply(state, p, a)  # type: ignore[arg-type]
        assert not isinstance(new, Rejection)
        state = new
