"""The plugin protocol: what a rules engine must provide, and the value it returns on a rejection.

A rules engine is pure Python with no I/O: ``apply(state, seat, action)`` takes a state and an
action and returns either a new state or a :class:`Rejection` carrying a stable code and a
sentence a player can read. Engines never mutate the state they are given.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

S = TypeVar("S")


@dataclass(frozen=True)
class Rejection:
    """An action the rules forbid: ``code`` is stable (snake_case), ``message`` is for people."""

    code: str
    message: str


@dataclass(frozen=True)
class OptionSpec:
    """One room option of a game: its default and the values a room may choose."""

    name: str
    default: Any
    choices: tuple[Any, ...] = ()
    description: str = ""


@dataclass(frozen=True)
class GameInfo:
    """What a plugin declares about itself."""

    name: str
    title: str
    min_players: int
    max_players: int
    options: tuple[OptionSpec, ...] = field(default_factory=tuple)

    def resolve_options(self, given: dict[str, Any] | None) -> dict[str, Any] | Rejection:
        """Fill defaults and check every given option against its choices."""
        given = dict(given or {})
        out: dict[str, Any] = {}
        known = {o.name: o for o in self.options}
        for name in given:
            if name not in known:
                return Rejection("bad_option", f"{self.title} has no option called {name!r}.")
        for opt in self.options:
            value = given.get(opt.name, opt.default)
            if opt.choices and value not in opt.choices:
                allowed = ", ".join(str(c) for c in opt.choices)
                return Rejection("bad_option", f"Option {opt.name} must be one of {allowed}.")
            out[opt.name] = value
        return out


class RulesEngine(Protocol, Generic[S]):
    """A pure rules engine. ``S`` is the engine's own (immutable or copied-on-write) state type."""

    info: GameInfo

    def new_game(self, players: int, options: dict[str, Any], seed: int) -> S: ...

    def legal_actions(self, state: S, seat: int) -> list[dict[str, Any]]: ...

    def apply(self, state: S, seat: int, action: dict[str, Any]) -> S | Rejection: ...

    def view(self, state: S, seat: int | None) -> dict[str, Any]: ...

    def dump(self, state: S) -> dict[str, Any]: ...

    def load(self, data: dict[str, Any]) -> S: ...


@dataclass(frozen=True)
class ZoneSpec:
    """A place on the table a game puts cards: a pile (``layout="pile"``, only the top shows)
    or a fanned row (``"row"``, every card shows); ``up`` says whether its cards lie face up.
    ``faces`` lists the cards bottom first."""

    id: str
    label: str
    x: float
    y: float
    faces: tuple[str, ...]
    up: bool = False
    layout: str = "pile"
    w: float = 110.0
    h: float = 150.0


@dataclass(frozen=True)
class Projection:
    """Where every card of the game is, as the table should show it: zones and seats' hands.

    ``deal`` changes whenever the cards are gathered and dealt again; the server then gives every
    card a new id, so nothing seen in an earlier deal can be linked to a card in this one.
    """

    zones: tuple[ZoneSpec, ...]
    hands: dict[int, tuple[str, ...]]
    deal: int = 0


@dataclass(frozen=True)
class Cosmetic:
    """A table move the rules don't care about (e.g. reordering your own hand): allow it."""


@dataclass(frozen=True)
class MoveIntent:
    """A drag the player made, in game terms: which card from where to where."""

    seat: int
    face: str
    source: str  # container id: a zone id or "hand<seat>"
    dest: str


class GameBinding(Protocol):
    """Binds a rules engine to the table: layout, drags to actions, state back onto the table."""

    @property
    def info(self) -> GameInfo: ...

    @property
    def engine(self) -> RulesEngine[Any]: ...

    def project(self, state: Any) -> Projection: ...

    def action_for_move(
        self, state: Any, move: MoveIntent
    ) -> dict[str, Any] | Cosmetic | Rejection: ...

    def bot_action(self, state: Any, seat: int, rng: Any) -> dict[str, Any] | None:
        """A computer player's move for ``seat`` (None: nothing to do). Bots never start the
        next hand or game on their own: people get to look at the reveal first."""
        ...
