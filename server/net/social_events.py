"""Socket handlers of the social events, registered on the socket front (:class:`Front`).

Like the table's handlers they only translate: parse the event's schema, call the social
services, answer the connection. Messages for a player go to the Socket.IO room of its identity
(``id/<identity>``), which the manager fans out through Redis to every process.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from typing import Any

from server.errors import BAD_REQUEST, FORBIDDEN, CardtableError
from server.net.events import (
    Ack,
    ChallengeSent,
    FavouritesOnlinePage,
    HelloOk,
    RematchSent,
    Someone,
)
from server.net.messages import (
    Challenge,
    ChallengeAnswer,
    ChallengeCancel,
    Chat,
    FavouritesOnline,
    Hello,
    Join,
    Lobby,
    Online,
    Relation,
    Rematch,
    parse,
)
from server.net.session import Front, Session
from server.room.host import seat_computer
from server.room.service import ALL, Commit, Joined, RoomService
from server.social.challenges import Challenges, Open, check_target
from server.social.chat import RATE, ChatLog, clean_text
from server.social.guard import require_identity
from server.social.identity import Identities
from server.social.keys import (
    BAD_IDENTITY,
    BLOCKED,
    BLOCKED_PLAYER_HERE,
    NO_IDENTITY,
    OFFLINE,
    OUT_OF_DATE,
    id_room,
)
from server.social.lobby import Lobby as LobbyService
from server.social.relations import Relations
from server.store.rate_limits import RateLimited, SlidingLimiter, Window, wait_words

log = logging.getLogger("cardtable.social")
CHALLENGES_PER_MINUTE = 10
OUT_OF_DATE_MESSAGE = "App out of date — reload to keep playing"
BLOCKED_HERE_MESSAGE = (
    "This table has a player that you have blocked, perhaps under another name. Join anyway?"
)


def out_of_date() -> CardtableError:
    return CardtableError(OUT_OF_DATE, OUT_OF_DATE_MESSAGE)


class SocialHandlers:
    def __init__(self, sockets: Front) -> None:
        self.sockets = sockets
        self.sio = sockets.sio
        self.config = sockets.config
        self.ready = False
        for name, fn in (
            ("hello", self.on_hello),
            ("online", self.on_online),
            ("lobby", self.on_lobby),
            ("challenge", self.on_challenge),
            ("challenge_answer", self.on_challenge_answer),
            ("challenge_cancel", self.on_challenge_cancel),
            ("rematch", self.on_rematch),
            ("favourites_online", self.on_favourites_online),
            ("relation", self.on_relation),
            ("chat", self.on_chat),
        ):
            self.sio.on(name, sockets.guard(name, fn))

    def start(self, rooms: RoomService) -> None:
        self.rooms = rooms
        social = rooms.store.social
        self.identities = Identities(social)
        self.lobby = LobbyService(social, 3 * self.config.heartbeat_seconds)
        self.relations = Relations(social)
        self.challenges = Challenges(social, self.config.challenge_seconds)
        self.chat_log = ChatLog(social, self.config.room_ttl_seconds)
        self.limiter = SlidingLimiter(
            rooms.store,
            "challenge",
            [Window(60, CHALLENGES_PER_MINUTE)],
            "challenges",
            self.config.clock,
        )
        self.chat_limiter = SlidingLimiter(
            rooms.store, "chat", [Window(RATE[1], RATE[0])], "chat lines", self.config.clock
        )
        # Chat from sockets without ``hello``: per client address, so a new socket starts
        # nothing afresh.
        self.chat_addr_limiter = SlidingLimiter(
            rooms.store, "chat-addr", [Window(RATE[1], RATE[0])], "chat lines", self.config.clock
        )
        # Challenges one identity receives from non-favourites, whoever sends them (identities
        # are free, so a per-sender limit alone lets many identities flood one person).
        self.received = SlidingLimiter(
            rooms.store,
            "challenged",
            [
                Window(60, self.config.challenges_received_per_minute),
                Window(3600, self.config.challenges_received_per_hour),
            ],
            "challenges",
            self.config.clock,
        )
        self.ready = True

    # --- helpers ----------------------------------------------------------------------------

    def _me(self, s: Session) -> str:
        if not self.ready:
            raise CardtableError(BAD_REQUEST, "Playing with people needs the Redis store.")
        if s.identity is None:
            raise CardtableError(NO_IDENTITY, "Say hello first: this needs your identity.")
        return s.identity

    async def _to(self, identity: str, event: str, data: Any) -> None:
        await self.sio.emit(event, data, room=id_room(identity))

    async def _ack(self, sid: str, ref: Any) -> None:
        await self.sockets.reply("ack", Ack(ref=ref, v=None), sid)

    # --- lifecycle hooks called by SocketHandlers -------------------------------------------

    async def disconnected(self, sid: str, s: Session) -> None:
        if s.identity is None or not self.ready:
            return
        if s.online:
            await self.lobby.go_offline(s.identity, sid, time.time())
        if s.code is not None:
            await self.lobby.left(s.identity, s.code)

    async def heartbeat(self, sessions: list[Session]) -> None:
        if not self.ready:
            return
        online = [
            (s.identity, s.sid, s.name) for s in sessions if s.online and s.identity is not None
        ]
        await self.lobby.refresh(online, time.time())
        await self.lobby.still_at(
            {s.identity: s.code for s in sessions if s.identity is not None and s.code is not None}
        )
        await self.expire_challenges()

    async def expire_challenges(self) -> None:
        """Tell both players of every challenge that has just expired (on any process)."""
        for ch in await self.challenges.sweep(self.config.clock()):
            for who in (ch.sender, ch.to):
                await self._to(who, "challenge_expired", ch.expired())

    def _expire_later(self) -> None:
        """Sweep once this process's new challenge is due (heartbeats sweep too)."""

        async def later() -> None:
            await asyncio.sleep(self.config.challenge_seconds + 0.05)
            try:
                await self.expire_challenges()
            except CardtableError:
                log.warning("challenge expiry: store unreachable; the heartbeat retries")

        task = asyncio.create_task(later())
        self.sockets.tasks.add(task)
        task.add_done_callback(self.sockets.tasks.discard)

    async def join(self, s: Session, code: str, msg: Join) -> Joined | None:
        """A new player's join, with the connection's identity (from ``hello``; the ``join``
        field, if given, must name that same one): checked against blocks, and stored on the
        player. Without an identity: no seat where someone blocks (:mod:`guard`). ``None``
        (a reclaim by token): the table's usual join does it."""
        if msg.token is not None:
            return None
        if msg.identity is not None and msg.identity != self._me(s):
            raise CardtableError(BAD_IDENTITY, "Join with your own identity.")
        if not self.ready:
            return None
        me = s.identity
        table = await self.rooms.load_table(code)
        if me is None:
            if msg.seat is not None:
                await require_identity(self.relations, table, None, "sit")
            return await self.rooms.join(code, msg.name, None, msg.seat)
        here = sorted(
            {p.identity for p in table.players.values() if p.identity and p.identity != me}
        )
        if await self.relations.who_has(here, "block", me):
            raise CardtableError(BLOCKED, "A player at this table has blocked you.")
        if not msg.anyway and await self.relations.has(me, "block", here):
            raise CardtableError(BLOCKED_PLAYER_HERE, BLOCKED_HERE_MESSAGE)
        return await self.rooms.join(code, msg.name, None, msg.seat, me)

    async def may_sit(self, code: str, player_id: str, seat: object) -> None:
        """A ``seat`` change to a seat: refused to a player without an identity where someone
        blocks (:mod:`guard`)."""
        if seat is None or not self.ready:
            return
        table = await self.rooms.load_table(code)
        player = table.players.get(player_id)
        await require_identity(self.relations, table, player.identity if player else None, "sit")

    async def joined(self, sid: str, s: Session, code: str) -> None:
        """Send a joining connection the room's recent chat (lines from players it muted
        left out). A connection with an identity is online at this table from here, unless it
        chose to be offline."""
        if not self.ready:
            return
        if s.identity is not None:
            await self.lobby.at(s.identity, code)
            if not s.online and not s.offline_chosen:
                await self.lobby.go_online(s.identity, sid, s.name, time.time())
                s.online = True
        lines = await self.chat_log.history(code)
        if s.identity is not None:
            senders = sorted(
                {str(line["from"]["identity"]) for line in lines if line["from"].get("identity")}
            )
            muted = await self.relations.has(s.identity, "mute", senders)
            lines = [line for line in lines if line["from"].get("identity") not in muted]
        await self.sockets.reply("chat_history", {"code": code, "lines": lines}, sid)

    async def public(
        self, code: str, player_id: str, public: object, once: str | None = None
    ) -> Commit:
        """The host's ``public`` action (``once``: its operation id), then the lobby's index of
        public rooms."""
        commit = await self.rooms.host_action(code, player_id, "public", public, once)
        if self.ready:
            await self.lobby.set_public(code, public is True, time.time())
        return commit

    # --- events -----------------------------------------------------------------------------

    async def on_hello(self, sid: str, s: Session, data: dict[str, Any]) -> None:
        msg = parse(Hello, data, "hello")
        if msg.build != self.config.build:  # a page too old to say its build is out of date too
            s.out_of_date = True
            raise out_of_date()
        if not self.ready:
            raise CardtableError(BAD_REQUEST, "Playing with people needs the Redis store.")
        identity, secret, name = await self.identities.hello(msg.id, msg.secret, msg.name)
        if s.identity is not None and s.identity != identity:
            await self.sio.leave_room(sid, id_room(s.identity))
            if s.online:
                await self.lobby.go_offline(s.identity, sid, time.time())
                s.online = False
        s.identity, s.name = identity, name
        await self.sio.enter_room(sid, id_room(identity))
        if s.online:
            await self.lobby.go_online(identity, sid, name, time.time())
        await self.sockets.reply(
            "hello_ok", HelloOk(id=identity, secret=secret, name=name, ref=msg.ref), sid
        )
        await self.sockets.reply("relations", await self.relations.all(identity), sid)

    async def on_online(self, sid: str, s: Session, data: dict[str, Any]) -> None:
        msg = parse(Online, data, "online")
        me = self._me(s)
        if msg.on:
            await self.lobby.go_online(me, sid, s.name, time.time())
        else:
            await self.lobby.go_offline(me, sid, time.time())
        s.online, s.offline_chosen = msg.on, not msg.on
        await self._ack(sid, msg.ref)

    async def on_lobby(self, sid: str, s: Session, data: dict[str, Any]) -> None:
        msg = parse(Lobby, data, "lobby")
        me = self._me(s)
        players, total = await self.lobby.players(me, msg.page, msg.q, time.time(), self.rooms)
        tables = await self.lobby.tables(self.rooms, msg.q) if msg.page == 0 else []
        await self.sockets.reply(
            "lobby",
            {
                "players": players,
                "tables": tables,
                "total": total,
                "page": msg.page,
                "ref": msg.ref,
            },
            sid,
        )

    async def on_challenge(self, sid: str, s: Session, data: dict[str, Any]) -> None:
        msg = parse(Challenge, data, "challenge")
        me = self._me(s)
        check_target(me, msg.to)
        if msg.room is None:
            if msg.game is None:
                raise CardtableError(BAD_REQUEST, "Name a game, or a room to invite them to.")
            game = msg.game
        else:  # an invite: to the table this connection is at, whose game it is
            if msg.game is not None or msg.options is not None:
                raise CardtableError(BAD_REQUEST, "An invite takes the room's own game.")
            code, _ = self.sockets.joined(s)
            if msg.room != code:
                raise CardtableError(
                    FORBIDDEN, "You can invite people only to the table you are at."
                )
            table = await self.rooms.load_table(code)
            if any(p.identity == msg.to for p in table.players.values()):
                raise CardtableError(BAD_REQUEST, "They are at this table already.")
            game = table.game.name if table.game is not None else ""
        ch = await self._challenge(me, s.name, msg.to, game, msg.options, msg.room)
        await self.sockets.reply("challenge_sent", ChallengeSent(id=ch.id, ref=msg.ref), sid)

    async def _challenge(
        self,
        me: str,
        name: str,
        to: str,
        game: str,
        options: dict[str, Any] | None,
        room: str | None,
        seat: int | None = None,
    ) -> Open:
        """Open a challenge (an invite with ``room``) from ``me`` to ``to``, and tell ``to``:
        the sender's rate limit, blocks either way, ``to`` online, and ``to``'s received limit."""
        await self.limiter.take(me)
        if await self.relations.blocked_between(me, to):
            raise CardtableError(BLOCKED, "You can't challenge this player.")
        if not await self.lobby.is_online(to, time.time()):
            raise CardtableError(OFFLINE, "That player is not online.")
        counted = await self._receive(me, to)
        try:
            ch = await self.challenges.open(
                me, name, to, game, options, self.config.clock(), room, seat
            )
        except CardtableError:
            if counted is not None:  # a bad game or options: nothing was sent to them
                await self.received.give_back(to, counted)
            raise
        self._expire_later()
        await self._to(to, "challenged", ch.challenged())
        return ch

    async def on_rematch(self, sid: str, s: Session, data: dict[str, Any]) -> None:
        """The same game and options in a new room, each computer in its seat at its level,
        and an invite to it for every other person who played here (seated, or gone)."""
        msg = parse(Rematch, data, "rematch")
        me = self._me(s)
        code, pid = self.sockets.joined(s)
        table = await self.rooms.load_table(code)
        if table.game is None:
            raise CardtableError(BAD_REQUEST, "A rematch is for a rule game.")
        bots = sorted(
            (p.seat, p.level) for p in table.players.values() if p.bot and p.seat is not None
        )
        people: dict[str, tuple[str, int | None]] = {}  # identity -> name, seat to keep
        for f in table.former:
            if f.identity is not None and f.identity != me:
                people[f.identity] = (f.name, f.seat)
        for p in sorted(table.players.values(), key=lambda p: (p.seat is None, p.seat or 0)):
            if not p.bot and p.seat is not None and p.identity is not None and p.identity != me:
                people[p.identity] = (p.name, p.seat)
        new = await self.rooms.create_room(game=table.game.name, options=table.game.options)
        if bots:
            rng = self.rooms.rng

            def seat_bots(t: Any) -> None:
                for seat, level in bots:
                    seat_computer(t, seat, level, rng, "Rematch")

            await self.rooms.edit(new.code, seat_bots)
        mine = table.players.get(pid)
        seat = mine.seat if mine is not None else None
        sent: list[Someone] = []
        skipped: list[Someone] = []
        for who, (name, their_seat) in people.items():
            try:
                await self._challenge(
                    me, s.name, who, str(table.game.name), None, new.code, their_seat
                )
                sent.append(Someone(id=who, name=name))
            except CardtableError:
                skipped.append(Someone(id=who, name=name))
        await self.sockets.reply(
            "rematch_sent",
            RematchSent(code=new.code, seat=seat, to=sent, skipped=skipped, ref=msg.ref),
            sid,
        )

    async def on_favourites_online(self, sid: str, s: Session, data: dict[str, Any]) -> None:
        """My favourites who are online now and have not blocked me: whom I may invite."""
        msg = parse(FavouritesOnline, data, "favourites_online")
        me = self._me(s)
        favourites = (await self.relations.all(me))["favourite"]
        blocking = await self.relations.who_has(favourites, "block", me)
        online = await self.lobby.online_among(
            [f for f in favourites if f not in blocking], time.time()
        )
        players = [Someone(id=p["id"], name=p["name"]) for p in online]
        await self.sockets.reply(
            "favourites_online", FavouritesOnlinePage(players=players, ref=msg.ref), sid
        )

    async def _receive(self, me: str, to: str) -> str | None:
        """Count a challenge ``to`` receives from ``me``, unless ``to`` favourited ``me``
        (None: not counted). Over the limit the refusal says the same whoever ``to``
        favourited."""
        if await self.relations.has(to, "favourite", [me]):
            return None
        try:
            return await self.received.take(to)
        except RateLimited as err:
            raise RateLimited(
                "This player has been sent too many challenges lately; try "
                f"again in {wait_words(err.retry_after)}.",
                err.retry_after,
            ) from None

    async def on_challenge_answer(self, sid: str, s: Session, data: dict[str, Any]) -> None:
        msg = parse(ChallengeAnswer, data, "challenge_answer")
        me = self._me(s)
        ch = await self.challenges.take(msg.id, me, "to", self.config.clock())
        if not msg.accept:
            await self._to(ch.sender, "challenge_declined", {"id": ch.id})
            await self._ack(sid, msg.ref)
            return
        if ch.room is not None:
            await self._accept_invite(sid, s, ch, msg.ref)
            return
        table = await self.rooms.create_room(game=ch.game, options=ch.options)
        await self._ack(sid, msg.ref)
        for who, seat in ((ch.sender, 0), (ch.to, 1)):
            await self._to(
                who,
                "challenge_accepted",
                {"id": ch.id, "code": table.code, "game": ch.game, "seat": seat},
            )

    async def _accept_invite(self, sid: str, s: Session, ch: Open, ref: Any) -> None:
        """An accepted invite: the invitee goes to the room, into its first free seat (None:
        none is free, so they watch); the sender hears they are coming."""
        assert ch.room is not None
        table = await self.rooms.load_table(ch.room)  # gone: ``not_found``
        taken = table.seated()
        if ch.seat is not None and ch.seat < table.seats and ch.seat not in taken:
            seat: int | None = ch.seat
        else:
            seat = next((i for i in range(table.seats) if i not in taken), None)
        await self._ack(sid, ref)
        await self._to(
            ch.to,
            "challenge_accepted",
            {"id": ch.id, "code": ch.room, "game": ch.game or None, "seat": seat, "invite": True},
        )
        await self._to(
            ch.sender, "invite_accepted", {"id": ch.id, "by": {"id": ch.to, "name": s.name}}
        )

    async def on_challenge_cancel(self, sid: str, s: Session, data: dict[str, Any]) -> None:
        msg = parse(ChallengeCancel, data, "challenge_cancel")
        me = self._me(s)
        ch = await self.challenges.take(msg.id, me, "from", self.config.clock())
        await self._to(
            ch.to,
            "challenge_cancelled",
            {"id": ch.id, "from": {"id": ch.sender, "name": ch.sender_name}},
        )
        await self._ack(sid, msg.ref)

    async def on_relation(self, sid: str, s: Session, data: dict[str, Any]) -> None:
        msg = parse(Relation, data, "relation")
        me = self._me(s)
        await self.relations.change(me, msg.id, msg.kind, msg.on)
        await self._ack(sid, msg.ref)
        await self._to(me, "relations", await self.relations.all(me))

    async def on_chat(self, sid: str, s: Session, data: dict[str, Any]) -> None:
        msg = parse(Chat, data, "chat")
        code, pid = self.sockets.joined(s)
        text = clean_text(msg.text)
        now = self.config.clock()
        await self._chat_rate(s)
        table = await self.rooms.load_table(code)
        player = table.players.get(pid)
        await require_identity(self.relations, table, player.identity if player else None, "chat")
        sender: dict[str, Any] = {"player": pid, "name": player.name if player else "?"}
        if player is not None and player.identity is not None:
            sender["identity"] = player.identity
        line = {"from": sender, "text": text, "at": now}
        await self.chat_log.add(code, line)
        skip = await self._muting(code, table.players, sender.get("identity"))
        await self.sio.emit(
            "chat", {**line, "code": code}, room=f"{code}/{ALL}", skip_sid=skip or None
        )
        await self._ack(sid, msg.ref)

    async def _chat_rate(self, s: Session) -> None:
        """Count a chat line for the sender's identity (all its sockets, on every process), or,
        when the connection has none, for its client address (all such sockets from it)."""
        try:
            if s.identity is not None:
                await self.chat_limiter.take(f"id:{s.identity}")
            else:
                await self.chat_addr_limiter.take(s.addr)
        except RateLimited as err:
            most, seconds = RATE
            whose = "" if s.identity is not None else " from your address"
            raise RateLimited(
                f"Slow down: at most {most} chat lines in {seconds:g} "
                f"seconds{whose}; try again in "
                f"{max(1, math.ceil(err.retry_after))} s.",
                err.retry_after,
            ) from None

    async def _muting(self, code: str, players: dict[str, Any], sender: str | None) -> list[str]:
        """The room's live sockets (any process) whose identity muted ``sender``."""
        if sender is None:
            return []
        cfg = self.config
        members = await self.rooms.store.live_members(code, time.time() - 3 * cfg.heartbeat_seconds)
        by_identity: dict[str, list[str]] = {}
        for m in members:
            pid, _, sid = m.partition("|")
            p = players.get(pid)
            if p is not None and p.identity is not None:
                by_identity.setdefault(p.identity, []).append(sid)
        muters = await self.relations.who_has(sorted(by_identity), "mute", sender)
        return [sid for i in sorted(muters) for sid in by_identity[i]]
