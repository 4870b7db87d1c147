"""The plugin protocol: what a rules engine must provide, and the value it returns on a rejection.

A rules engine is pure Python with no I/O: ``apply(state, player, action)`` takes a state and an
action and returns either a new state or a :class:`Rejection` carrying a stable code and a
sentence a player can read. Engines never mutate the state they are given.

Contract version 2 (:class:`Engine`): engine players are numbered ``0..n-1`` in turn order (the
server maps them to the table seats actually taken); ``to_act`` says who may act now (several
players at once in a buying window); ``scheduled`` asks for an automatic action after a delay
(a finished trick is gathered, a buying window closes); ``describe`` writes the log line in
plain words; ``status``, ``scoreboard`` and ``reveal`` give the table UI what it shows, in one
shape for every game; ``load`` refuses impossible states with :class:`InvalidState`.

The flow (:class:`Flow`, :class:`Phase`, :class:`Action`): a game declares its phases (the moves
allowed in each and who may make them) and its moves as typed msgspec structs; one gate gives
the standard rejections (bad player, bad shape, unknown move, game over, not your turn, wrong
phase, a malformed field) and calls the engine's handler with the typed move.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

import msgspec

S = TypeVar("S")


@dataclass(frozen=True)
class Rejection:
    """An action the rules forbid: ``code`` is stable (snake_case), ``message`` is for people."""

    code: str
    message: str


_TO_PLAIN = msgspec.msgpack.Encoder()
_FROM_PLAIN = msgspec.msgpack.Decoder()


def plain(obj: Any) -> Any:
    """Structs and tuples as plain dicts and lists: what ``dump`` and ``view`` hand out (and
    exactly what msgpack gives back)."""
    return _FROM_PLAIN.decode(_TO_PLAIN.encode(obj))


class InvalidState(ValueError):
    """``load()`` was given a state that cannot happen (duplicate cards, wrong counts, bad
    phase...). The message says what is wrong."""


T = TypeVar("T")


def dump_state(state: Any) -> dict[str, Any]:
    """An engine state as plain data (str/int/bool/list/dict/None) for msgpack."""
    data = plain(state)
    assert isinstance(data, dict)
    return data


def load_state(data: Any, kind: type[T], title: str, problem: Callable[[T], str | None]) -> T:
    """``data`` as a ``kind`` state, or :class:`InvalidState` saying what is wrong: the shape
    (types, missing fields) first, then ``problem`` (what the game's rules make impossible)."""
    if not isinstance(data, dict):
        raise InvalidState(f"A {title} state must be a mapping of fields.")
    try:
        state = msgspec.convert(data, kind)
    except (msgspec.ValidationError, TypeError) as exc:
        raise InvalidState(f"Not a {title} state: {exc}") from None
    found = problem(state)
    if found is not None:
        raise InvalidState(found)
    return state


@dataclass(frozen=True)
class OptionSpec:
    """One room option of a game: its default and the values a room may choose.

    ``check``, when given, validates a structured value (e.g. Pennies' round chart): it returns
    ``None`` when the value is fine, otherwise a sentence saying what is wrong.
    """

    name: str
    default: Any
    choices: tuple[Any, ...] = ()
    description: str = ""
    label: str = ""
    check: Callable[[Any], str | None] | None = field(default=None, compare=False)

    def as_data(self) -> dict[str, Any]:
        """What the home page needs to render the option for any game."""
        return {
            "name": self.name,
            "label": self.label or self.name.replace("_", " "),
            "default": self.default,
            "choices": list(self.choices),
            "description": self.description,
        }


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
            if opt.check is not None and opt.name in given:
                problem = opt.check(value)
                if problem is not None:
                    return Rejection("bad_option", f"Option {opt.name}: {problem}")
            out[opt.name] = value
        return out


@dataclass(frozen=True)
class Scheduled:
    """An automatic action the engine wants applied after ``delay`` seconds, unless the state
    changes first. ``player`` is who it is applied as; ``None`` means the game itself."""

    delay: float
    action: dict[str, Any]
    player: int | None = None


@dataclass(frozen=True)
class Outcome:
    """The end of a game: who won (several players when a side wins or on a shared win) and each
    player's final score (a team's score repeated for each partner)."""

    winners: tuple[int, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True)
class Scoreboard:
    """Scores in one shape for every game. ``columns`` are column titles (a player's or a side's
    name; the engine gets the names), ``rows`` one per finished hand/deal/round with one cell per
    column, ``totals`` the running totals, ``note`` a line under it (``"First to 500"``).
    ``scored`` says how many leading columns are the game's scores (0: all of them); the rest are
    running counts shown in the sheet only (Spades' bags), so a one-line summary can skip them."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str, tuple[int | str, ...]], ...]
    totals: tuple[int, ...]
    note: str = ""
    scored: int = 0

    def as_data(self) -> dict[str, Any]:
        return {
            "columns": list(self.columns),
            "rows": [{"label": label, "cells": list(cells)} for label, cells in self.rows],
            "totals": list(self.totals),
            "note": self.note,
            "scored": self.scored or len(self.columns),
        }


@dataclass(frozen=True)
class RevealLine:
    """One player's cards shown at the end of a hand: melds, what was left, points, a note."""

    player: int
    melds: tuple[tuple[str, ...], ...] = ()
    cards: tuple[str, ...] = ()
    points: int = 0
    note: str = ""

    def as_data(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "melds": [list(m) for m in self.melds],
            "cards": list(self.cards),
            "points": self.points,
            "note": self.note,
        }


class Engine(Protocol[S]):
    """A pure rules engine, contract version 2. ``S`` is the engine's own immutable state.

    Players are ``0..n-1`` in turn order (clockwise). ``names`` arguments hold the players'
    display names in that order, so text can say "Ana" instead of "player 0".
    """

    info: GameInfo

    def new_game(
        self, players: int, options: dict[str, Any], seed: int, deck: Sequence[str] | None = None
    ) -> S:
        """A fresh game. ``seed`` drives every shuffle (reproducible); ``deck``, when given, is
        the exact order of the first deal's cards, ``deck[0]`` dealt first (tests)."""
        ...

    def teams(self, state: S) -> list[list[int]]:
        """The sides: ``[[0, 2], [1, 3]]`` for partnerships, ``[[0], [1], ...]`` otherwise."""
        ...

    def to_act(self, state: S) -> list[int]:
        """Players who may act now, in turn order; empty while only a scheduled action (or
        nothing, at game over) can move the game on."""
        ...

    def legal_actions(self, state: S, player: int) -> list[dict[str, Any]]:
        """Every action ``player`` may make now; each applies without a rejection. Actions that
        take a free choice (a Pennies meld with a named rank) may be listed by example."""
        ...

    def apply(self, state: S, player: int | None, action: dict[str, Any]) -> S | Rejection:
        """The new state, or why not. ``player`` is ``None`` for the game's own scheduled
        actions."""
        ...

    def scheduled(self, state: S) -> Scheduled | None: ...

    def view(self, state: S, player: int | None) -> dict[str, Any]:
        """What ``player`` may see (``None``: a spectator); never another player's hidden
        cards. Always has ``phase`` and ``to_act``."""
        ...

    def describe(
        self,
        before: S,
        player: int | None,
        action: dict[str, Any],
        names: Sequence[str],
        after: S | Rejection | None = None,
    ) -> str:
        """The public log line for ``action`` applied to ``before``: plain words and card names
        ("Ana discarded the queen of clubs"), never a card the others may not see. ``after``:
        what ``apply(before, player, action)`` gave, when the caller has it already (the server
        does), so the move is not applied a second time."""
        ...

    def status(self, state: S, names: Sequence[str]) -> str:
        """One short line for everyone: "Ben to bid", "Ana won the trick"."""
        ...

    def scoreboard(self, state: S, names: Sequence[str]) -> Scoreboard: ...

    def reveal(self, state: S) -> list[RevealLine] | None:
        """The last finished hand's cards shown to everyone, or ``None`` mid-hand."""
        ...

    def outcome(self, state: S) -> Outcome | None:
        """``None`` until the game is over."""
        ...

    def dump(self, state: S) -> dict[str, Any]:
        """Plain data (str/int/bool/float/list/dict/None) for msgpack."""
        ...

    def load(self, data: dict[str, Any]) -> S:
        """The state back from :meth:`dump`; :class:`InvalidState` if it cannot happen."""
        ...


class FairDeals(Protocol[S]):
    """Optional engine hooks for provably fair deals (docs/fairness.md); an engine without them
    still loads and deals from its seed. A deal with a key is ``fair.shuffle(canonical deck,
    key, "deal")`` dealt as the game deals, a reshuffle within it ``"reshuffle:<i>"`` (i from 1).
    ``new_game`` also takes ``deal_key: bytes | None = None`` for the first deal."""

    def deal_with(self, state: S, key: bytes) -> S:
        """The state with the key the NEXT deal will use (cleared once used)."""
        ...

    def deal_record(self, state: S) -> dict[str, Any] | None:
        """The current deal: ``{"deal", "dealer", "deck", "order", "dealt"}`` (``dealt`` names
        the engine's players as "0".."n-1"), or ``None`` if it was dealt from the seed."""
        ...


def fair_deals(engine: object) -> FairDeals[Any] | None:
    """``engine`` as :class:`FairDeals` when it has the hooks, else ``None``."""
    if callable(getattr(engine, "deal_with", None)) and callable(
        getattr(engine, "deal_record", None)
    ):
        return typing.cast("FairDeals[Any]", engine)
    return None


@dataclass(frozen=True)
class ZoneSpec:
    """A place on the table a game puts cards: a pile (``layout="pile"``, only the top shows)
    or a fanned row (``"row"``, every card shows); ``up`` says whether its cards lie face up.
    ``faces`` lists the cards bottom first. ``owner`` is the engine player the zone belongs to
    (a meld area, the card a player put on the trick) or ``None`` for a shared zone; the page
    moves owned zones round the table so that every viewer sits at the bottom (see
    :attr:`Projection.slots`). ``drop`` marks a zone players may drag cards onto.
    ``shuffled`` says the zone's cards were just gathered and shuffled (this state's move
    rebuilt it): the server gives every card in it a new id, even one whose face happens to lie
    where a card of that face lay before."""

    id: str
    label: str
    x: float
    y: float
    faces: tuple[str, ...]
    up: bool = False
    layout: str = "pile"
    w: float = 110.0
    h: float = 150.0
    owner: int | None = None
    drop: bool = False
    shuffled: bool = False


@dataclass(frozen=True)
class Marker:
    """A chip stack, counter or label the game shows: pennies, tricks taken, a bid, a round's
    contract. ``kind`` is ``chips``, ``counter`` or ``label``; ``value`` the count or number;
    ``text`` the label's words."""

    id: str
    kind: str
    x: float
    y: float
    label: str = ""
    value: int = 0
    text: str = ""
    color: str = "gold"
    owner: int | None = None


@dataclass(frozen=True)
class Projection:
    """Where everything of the game is, as the table should show it.

    ``hands`` maps engine players to their cards (the server puts them in the hand of that
    player's table seat). ``slots`` are the places round the table, ``(x, y, fx, fy)`` with
    ``(fx, fy)`` pointing at the middle, index 0 at the bottom, in turn order (see
    :mod:`plugins.layout`); owned zones and markers are laid out with player ``p`` at
    ``slots[p]``, and each page turns them so its own player is at ``slots[0]``.
    ``deal`` changes whenever the cards are gathered and dealt again; the server then gives
    every card a new id, so nothing seen in an earlier deal can be linked to a card in this one.
    """

    zones: tuple[ZoneSpec, ...]
    hands: dict[int, tuple[str, ...]]
    deal: int = 0
    markers: tuple[Marker, ...] = ()
    slots: tuple[tuple[float, float, float, float], ...] = ()


@dataclass(frozen=True)
class Cosmetic:
    """A table move the rules don't care about (e.g. reordering your own hand): allow it."""


@dataclass(frozen=True)
class Drop:
    """A drag a player made, in game terms: these cards (faces), from where, to where.
    ``source`` and ``dest`` are zone ids, or ``"hand"`` for the player's own hand. Several
    selected cards dropped together are one drop (lay down a meld)."""

    player: int
    cards: tuple[str, ...]
    source: str
    dest: str


@dataclass(frozen=True)
class Control:
    """One legal action and how a person does it, for a page that knows no game.

    ``kind``: ``button`` (a button with ``label``), ``drag`` (drag ``cards`` from ``source`` to
    ``dest``), or ``prompt`` (a question with a countdown, e.g. "Buy the 7 of hearts?").
    ``group`` gathers controls a game-specific widget shows together (``bid``: a bid pad).
    ``pick`` > 0: the player first selects that many cards of their hand, which the page adds
    to the action as ``"cards"`` (pass 2 cards).
    """

    action: dict[str, Any]
    label: str
    kind: str = "button"
    source: str | None = None
    dest: str | None = None
    cards: tuple[str, ...] = ()
    group: str = ""
    pick: int = 0

    def as_data(self) -> dict[str, Any]:
        out: dict[str, Any] = {"action": self.action, "label": self.label, "kind": self.kind}
        if self.source is not None:
            out["source"] = self.source
        if self.dest is not None:
            out["dest"] = self.dest
        if self.cards:
            out["cards"] = list(self.cards)
        if self.group:
            out["group"] = self.group
        if self.pick:
            out["pick"] = self.pick
        return out


class Binding(Protocol):
    """Binds a v2 engine to the table: layout, drags to actions, controls and hints.

    A game is an engine, a binding and a bot, registered together as a
    :class:`plugins.game.Game`; the server and the page know no game.
    """

    @property
    def info(self) -> GameInfo: ...

    @property
    def engine(self) -> Engine[Any]: ...

    @property
    def widgets(self) -> tuple[str, ...]:
        """Names of game-specific page widgets (``bid_pad``, ``knock_picker``); most games
        need none."""
        ...

    def project(self, state: Any) -> Projection: ...

    def interpret(self, state: Any, drop: Drop) -> dict[str, Any] | Cosmetic | Rejection:
        """The engine action a drop means, ``Cosmetic`` for a move the rules ignore (reorder
        your own hand), or why it is not a move of this game."""
        ...

    def controls(
        self, state: Any, player: int, legal: list[dict[str, Any]] | None = None
    ) -> list[Control]:
        """``player``'s legal actions, each with how it is done. ``legal``: the engine's
        ``legal_actions(state, player)``, when the caller has them already (the server does),
        so they are not worked out twice."""
        ...

    def hint(self, state: Any, player: int, view: dict[str, Any] | None = None) -> str | None:
        """Why an expected action is unavailable, in words ("your deadwood would be 23; the
        limit is 10"), or ``None``. ``view``: the engine's ``view(state, player)``, when the
        caller has it already (the server does)."""
        ...


# ------------------------------------------------------------------------------ the flow
#
# Every engine's ``apply`` starts with the same questions: who is asking, is this a move at all,
# is the game over, may this player move now, is this move allowed in this phase, is it well
# formed. A game declares the answers as data (a :class:`Flow` of :class:`Phase`\ s, its moves
# as :class:`Action` structs) and :meth:`Flow.apply` asks them in one fixed order, then calls
# the engine's handler for the move with a typed action.

EVERYONE = "everyone"
"""``Phase.actors`` for a phase where every player may act (between hands: anyone deals on)."""


class Action(msgspec.Struct, frozen=True, tag_field="type"):
    """A game's move: subclass with ``tag="<type>"`` and typed fields; the wire's
    ``{"type": "play", "card": "H5"}`` becomes ``Play(card="H5")`` by one ``msgspec.convert``.
    Fields the action does not declare are ignored, as before."""


FieldRefusal = Callable[[Any, Any, Any], Rejection]
"""``(state, player, value)`` to the rejection for a malformed field (``value`` is what was sent,
or ``None`` when it is missing)."""


@dataclass(frozen=True)
class Phase(Generic[S]):
    """One phase of a game: the moves allowed in it and who may make them.

    ``actions`` are the move types allowed; any other is ``wrong_phase`` with ``hint`` (or the
    game's ``elsewhere`` sentence for that move, or ``misplaced[type](state)`` when it gives
    one). ``actors`` says who may act: ``None`` means the flow's default (the player whose
    turn it is), :data:`EVERYONE`, or a function of the state; anyone else is
    ``not_your_turn`` with ``wait`` (a sentence or a function of the state), unless
    ``waiting`` names another rejection for that move. When nobody may act (the game itself
    moves next), every player's move is ``wrong_phase``. ``over``: the game has ended."""

    actions: frozenset[str]
    hint: str
    actors: Callable[[S], Collection[int]] | str | None = None
    wait: str | Callable[[S], str] | None = None
    waiting: Mapping[str, Rejection] = field(default_factory=dict)
    misplaced: Mapping[str, Callable[[S], Rejection | None]] = field(default_factory=dict)
    over: bool = False


@dataclass(frozen=True)
class Flow(Generic[S]):
    """A game's declarative flow and its one gate (:meth:`apply`).

    ``title`` names the game in messages; ``moves`` is the tagged union of its
    :class:`Action` structs; ``phases`` maps ``state.phase`` to its :class:`Phase`;
    ``handlers`` maps each move type to ``(state, player, action) -> state | Rejection``
    (``player`` is ``None`` for an ``automatic`` move). ``players(state)`` is how many
    players there are; ``actors(state)`` who may act by default; ``example`` the two move
    types a "bad shape" message gives as examples.

    Moves in ``anyone`` skip the turn gate (any player may make them where they are allowed:
    look at your cards, deal the next hand). Moves in ``automatic`` are the game's own: only
    ``player=None`` may make them, a player gets ``automatic``. Moves in ``lapse`` the game may
    make for the one player to act (an unanswered offer passing). ``elsewhere`` gives a move's
    ``wrong_phase`` sentence outside the phases that allow it ("This hand is still being
    played."). ``fields`` maps a field name (or ``"type.field"``) to its
    rejection, or a :data:`FieldRefusal` when the words depend on the state or the value.
    ``bad_player(state)`` refuses a player number out of range;
    ``no_player(state)`` a player's move sent without a player.
    """

    title: str
    moves: Any
    phases: Mapping[str, Phase[S]]
    handlers: Mapping[str, Callable[[S, Any, Any], S | Rejection]]
    players: Callable[[S], int]
    actors: Callable[[S], Collection[int]]
    example: tuple[str, str]
    bad_player: Callable[[S], Rejection]
    no_player: Callable[[S], Rejection]
    anyone: frozenset[str] = frozenset()
    automatic: Rejection | None = None
    automatic_moves: frozenset[str] = frozenset()
    lapse: frozenset[str] = frozenset()
    elsewhere: Mapping[str, str] = field(default_factory=dict)
    fields: Mapping[str, Rejection | FieldRefusal] = field(default_factory=dict)
    wait: str = "It's not your turn."
    bad_action: str = 'A move must have a "type", such as "{}" or "{}".'

    def __post_init__(self) -> None:
        """A flow that names a move without a struct or a handler is a plugin bug: say so when
        the engine is built, not at the first move."""
        structs, handled = set(self._kinds), set(self.handlers)
        named = {kind for phase in self.phases.values() for kind in phase.actions}
        named |= self.anyone | self.automatic_moves | self.lapse | set(self.elsewhere)
        if structs != handled or not named <= structs:
            raise ValueError(
                f"{self.title} flow: structs {sorted(structs)}, handlers "
                f"{sorted(handled)}, moves named {sorted(named)}"
            )

    def gate(self, state: S, player: Any, action: Any) -> tuple[int | None, Action] | Rejection:
        """Who makes which typed move, or the standard rejection, asked in this order: the
        player, the move's shape and type, game over, the game's own moves, the turn, the
        phase, the move's fields."""
        if player is None:
            if not (self.automatic_moves or self.lapse):
                return self.no_player(state)
        elif not (
            isinstance(player, int)
            and not isinstance(player, bool)
            and 0 <= player < self.players(state)
        ):
            return self.bad_player(state)
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            return Rejection("bad_action", self.bad_action.format(*self.example))
        kind = action["type"]
        if kind not in self.handlers:
            return Rejection("unknown_action", f"{self.title} has no move called {kind!r}.")
        phase = self.phases[state.phase]  # type: ignore[attr-defined]
        if phase.over:
            return Rejection("game_over", "The game is over; no more moves can be made.")
        if kind in self.automatic_moves:
            if player is not None:
                assert self.automatic is not None
                return self.automatic
            if kind not in phase.actions:
                return self._misplaced(state, phase, kind)
            return self._convert(state, None, kind, action)
        actors = self._actors(state, phase)
        if player is None:
            if kind in self.lapse and kind in phase.actions and len(actors) == 1:
                player = next(iter(actors))
            else:
                return self.no_player(state)
        if kind not in self.anyone and actors and player not in actors:
            refused = phase.waiting.get(kind)
            if refused is not None:
                return refused
            wait = phase.wait if phase.wait is not None else self.wait
            return Rejection("not_your_turn", wait if isinstance(wait, str) else wait(state))
        if kind not in phase.actions:
            return self._misplaced(state, phase, kind)
        return self._convert(state, player, kind, action)

    def apply(self, state: S, player: Any, action: Any) -> S | Rejection:
        """The gate, then the move's handler: the new state or a :class:`Rejection`."""
        gated = self.gate(state, player, action)
        if isinstance(gated, Rejection):
            return gated
        who, move = gated
        return self.handlers[move.__struct_config__.tag](state, who, move)  # type: ignore[index]

    def _actors(self, state: S, phase: Phase[S]) -> Collection[int]:
        if phase.actors is None:
            return self.actors(state)
        if phase.actors == EVERYONE:
            return range(self.players(state))
        assert callable(phase.actors)
        return phase.actors(state)

    def _misplaced(self, state: S, phase: Phase[S], kind: str) -> Rejection:
        special = phase.misplaced.get(kind)
        if special is not None:
            found = special(state)
            if found is not None:
                return found
        return Rejection("wrong_phase", self.elsewhere.get(kind, phase.hint))

    def _convert(
        self, state: S, player: int | None, kind: str, action: dict[str, Any]
    ) -> tuple[int | None, Action] | Rejection:
        struct = self._kinds[kind]
        try:  # into the move's own struct: the type is known, and a union is ~60x slower
            move = msgspec.convert(action, struct)
        except msgspec.ValidationError as exc:
            name = _bad_field(struct, action)
            refuse = self.fields.get(f"{kind}.{name}") or self.fields.get(name or "")
            if isinstance(refuse, Rejection):
                return refuse
            if name is not None and refuse is not None:
                return refuse(state, player, action.get(name))
            return Rejection("bad_action", f"That {kind} move is not well formed: {exc}.")
        return player, move

    @functools.cached_property
    def _kinds(self) -> dict[str, type[Action]]:
        """Each move type's struct, from the ``moves`` union."""
        return {cls.__struct_config__.tag: cls for cls in typing.get_args(self.moves)}


def _bad_field(kind: type[Action], action: dict[str, Any]) -> str | None:
    """The first of ``kind``'s fields, in declaration order, that ``action`` lacks or gets
    wrong: a move with two bad fields is refused for the first, whatever the dict's order."""
    for info in msgspec.structs.fields(kind):
        if info.encode_name not in action:
            if info.required:
                return info.name
            continue
        try:
            msgspec.convert(action[info.encode_name], info.type)
        except msgspec.ValidationError:
            return info.name
    return None
