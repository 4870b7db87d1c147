"""The declarative flow (``plugins.base.Flow``): one gate, in one order, for every engine.

A toy game declared in a few lines gets every standard rejection from the gate (bad player,
bad shape, unknown move, game over, not your turn, wrong phase, a malformed field) and its
handler gets a typed move; then the four real engines are held to the same order.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from msgspec.structs import replace

from plugins.base import EVERYONE, Action, Flow, Phase, Rejection
from plugins.gin_rummy.rules import ENGINE as GIN
from plugins.pennies.rules import ENGINE as PENNIES
from plugins.rummy.rules import ENGINE as RUMMY
from plugins.spades.rules import ENGINE as SPADES
from plugins.spades.rules import PLAYING

# ------------------------------------------------------------------------- a toy game


class Toy(msgspec.Struct, frozen=True):
    phase: str
    turn: int | None
    players: int = 3
    last: Any = None


class Step(Action, frozen=True, tag="step"):
    size: int
    note: str = ""


class Shout(Action, frozen=True, tag="shout"):
    pass


class Tick(Action, frozen=True, tag="tick"):
    pass


class Skip(Action, frozen=True, tag="skip"):
    pass


class Again(Action, frozen=True, tag="again"):
    pass


def _done(state: Toy, player: int | None, move: Action) -> Toy:
    return replace(state, last=(player, move))


def _too_late(state: Toy) -> Rejection | None:
    return Rejection("too_late", "The steps are over.") if state.turn == 2 else None


FLOW: Flow[Toy] = Flow(
    title="Toy",
    moves=Step | Shout | Tick | Skip | Again,
    phases={
        "walk": Phase(
            frozenset({"step", "shout"}),
            "Walk first.",
            waiting={"shout": Rejection("hush", "Only the walker shouts.")},
        ),
        "wait": Phase(
            frozenset({"skip", "tick"}),
            "Someone is waiting.",
            wait=lambda state: f"Player {state.turn} is waiting.",
            misplaced={"step": _too_late},
        ),
        "clock": Phase(frozenset({"tick"}), "The clock moves on its own.", actors=lambda s: []),
        "rest": Phase(frozenset({"again"}), "Time to rest.", actors=EVERYONE),
        "end": Phase(frozenset(), "It's over.", over=True),
    },
    handlers={"step": _done, "shout": _done, "tick": _done, "skip": _done, "again": _done},
    players=lambda state: state.players,
    actors=lambda state: [] if state.turn is None else [state.turn],
    example=("step", "shout"),
    bad_player=lambda state: Rejection("bad_player", f"Players are 0 to {state.players - 1}."),
    no_player=lambda state: Rejection("no_player", "Say who moves."),
    anyone=frozenset({"again"}),
    automatic=Rejection("automatic", "The clock ticks by itself."),
    automatic_moves=frozenset({"tick"}),
    lapse=frozenset({"skip"}),
    elsewhere={"again": "Not resting yet.", "tick": "The clock is stopped."},
    fields={
        "size": Rejection("bad_size", "Say how far, as a whole number."),
        "step.note": lambda state, player, value: Rejection(
            "bad_note", f"Player {player}: {value!r} is not a note."
        ),
    },
)

WALK = Toy("walk", 1)


def code(state: Toy, player: Any, action: Any) -> str:
    out = FLOW.apply(state, player, action)
    assert isinstance(out, Rejection), out
    return out.code


def test_the_gate_asks_in_one_order() -> None:
    over = Toy("end", None)
    assert code(WALK, 5, "step") == "bad_player"  # the player before the move's shape
    assert code(WALK, True, {"type": "step"}) == "bad_player"  # a bool is not a player
    assert code(WALK, 1, ["step"]) == "bad_action"
    assert code(WALK, 1, {"kind": "step"}) == "bad_action"
    assert code(over, 1, {"type": "fly"}) == "unknown_action"  # the move before game over
    assert code(over, 0, {"type": "step"}) == "game_over"  # game over before the turn
    assert code(WALK, 0, {"type": "skip"}) == "not_your_turn"  # the turn before the phase
    assert code(WALK, 1, {"type": "skip"}) == "wrong_phase"
    assert code(WALK, 1, {"type": "step"}) == "bad_size"  # the phase before the fields
    out = FLOW.apply(WALK, 0, {"type": "fly"})
    assert out == Rejection("unknown_action", "Toy has no move called 'fly'.")
    assert FLOW.apply(WALK, 1, 3) == Rejection(
        "bad_action", 'A move must have a "type", such as "step" or "shout".'
    )


def test_the_handler_gets_a_typed_move_and_extra_fields_are_ignored() -> None:
    after = FLOW.apply(WALK, 1, {"type": "step", "size": 2, "colour": "red"})
    assert isinstance(after, Toy) and after.last == (1, Step(size=2))


def test_two_bad_fields_are_refused_for_the_first_declared_whatever_the_order() -> None:
    for action in (
        {"type": "step", "size": "far", "note": 3},
        {"type": "step", "note": 3, "size": "far"},
    ):
        assert FLOW.apply(WALK, 1, action) == Rejection(
            "bad_size", "Say how far, as a whole number."
        )
    assert FLOW.apply(WALK, 1, {"type": "step", "size": 1, "note": 3}) == Rejection(
        "bad_note", "Player 1: 3 is not a note."
    )


def test_who_may_act_per_phase() -> None:
    waiting = Toy("wait", 2)
    assert FLOW.apply(waiting, 0, {"type": "skip"}) == Rejection(
        "not_your_turn", "Player 2 is waiting."
    )  # the phase's own words
    assert FLOW.apply(WALK, 0, {"type": "shout"}) == Rejection(
        "hush", "Only the walker shouts."
    )  # a waiting player's move with its own rule
    rest = Toy("rest", None)
    for player in range(3):  # everyone may make the phase's move
        assert isinstance(FLOW.apply(rest, player, {"type": "again"}), Toy)
    # a move anyone may make still needs its phase, and says so in its own words
    assert FLOW.apply(WALK, 0, {"type": "again"}) == Rejection("wrong_phase", "Not resting yet.")
    assert FLOW.apply(rest, 2, {"type": "step", "size": 1}) == Rejection(
        "wrong_phase", "Time to rest."
    )


def test_nobody_to_act_means_the_phase_says_why() -> None:
    clock = Toy("clock", None)
    assert FLOW.apply(clock, 0, {"type": "step", "size": 1}) == Rejection(
        "wrong_phase", "The clock moves on its own."
    )


def test_a_phase_may_explain_a_misplaced_move_from_the_state() -> None:
    assert code(Toy("wait", 2), 2, {"type": "step", "size": 1}) == "too_late"
    assert FLOW.apply(Toy("wait", 1), 1, {"type": "step", "size": 1}) == Rejection(
        "wrong_phase", "Someone is waiting."
    )


def test_the_games_own_moves_and_lapses() -> None:
    clock = Toy("clock", None)
    assert code(clock, 0, {"type": "tick"}) == "automatic"
    after = FLOW.apply(clock, None, {"type": "tick"})
    assert isinstance(after, Toy) and after.last == (None, Tick())
    assert FLOW.apply(WALK, None, {"type": "tick"}) == Rejection(
        "wrong_phase", "The clock is stopped."
    )
    lapsed = FLOW.apply(Toy("wait", 2), None, {"type": "skip"})  # for the one player to act
    assert isinstance(lapsed, Toy) and lapsed.last == (2, Skip())
    assert code(WALK, None, {"type": "skip"}) == "no_player"
    assert code(WALK, None, {"type": "step", "size": 1}) == "no_player"


# ------------------------------------------------------------------------ the four games


@pytest.mark.parametrize(
    ("engine", "players", "refused"),
    [
        (SPADES, 4, "bad_player"),
        (GIN, 2, "bad_seat"),
        (RUMMY, 3, "bad_player"),
        (PENNIES, 3, "bad_player"),
    ],
)
def test_every_game_checks_the_player_before_the_move(
    engine: Any, players: int, refused: str
) -> None:
    state = engine.new_game(players, {}, seed=3)
    for action in ("play", {"kind": "x"}, {"type": "fly"}):
        out = engine.apply(state, 9, action)
        assert isinstance(out, Rejection) and out.code == refused, (action, out)


def test_spades_asks_whose_turn_it_is_before_the_phase() -> None:
    state = SPADES.new_game(4, {}, seed=5)
    for _ in range(4):
        assert state.turn is not None
        state = SPADES.apply(state, state.turn, {"type": "bid", "bid": 3})
    assert state.phase == PLAYING and state.turn is not None
    other = (state.turn + 1) % 4
    assert SPADES.apply(state, other, {"type": "bid", "bid": 3}) == Rejection(
        "not_your_turn", "It's not your turn to play."
    )
    assert SPADES.apply(state, state.turn, {"type": "bid", "bid": 3}).code == "wrong_phase"


def test_a_malformed_field_is_refused_before_the_rules_read_the_state() -> None:
    state = RUMMY.new_game(3, {}, seed=2)
    state = RUMMY.apply(state, state.turn, {"type": "draw", "source": "stock"})
    missing = next(c for c in ("H1", "H2", "H3", "S1") if c not in state.hands[state.turn])
    out = RUMMY.apply(state, state.turn, {"type": "lay_off", "card": missing})
    assert isinstance(out, Rejection) and out.code == "no_such_meld"


def test_a_flow_naming_a_move_without_struct_or_handler_is_refused_when_built() -> None:
    with pytest.raises(ValueError, match="Toy flow"):
        Flow(
            title="Toy",
            moves=Step | Shout,
            phases=FLOW.phases,
            handlers={"step": _done},
            players=FLOW.players,
            actors=FLOW.actors,
            example=("step", "shout"),
            bad_player=FLOW.bad_player,
            no_player=FLOW.no_player,
        )
