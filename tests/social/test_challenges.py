"""Challenges over real sockets: sent, accepted into a new game room (seat 0 for the
challenger, 1 for the other), declined, cancelled, expired (injected clock; announced to both,
also when the process that took the challenge is gone), and refused for yourself, offline or
unknown targets, blocked pairs, bad games and floods."""

from __future__ import annotations

import pytest

from cardtable_client import OpFailed
from server.errors import CardtableError
from server.net.http import ROOMS_KEY
from server.net.social_events import CHALLENGES_PER_MINUTE
from tests.conftest import make_config, start_server
from tests.social.helpers import social_client


async def challenge(a, b, game: str = "gin_rummy", **extra):
    sent = await a.request("challenge", {"to": b.identity, "game": game, **extra})
    got = await b.event("challenged", lambda d: d["id"] == sent["id"])
    return sent["id"], got


async def test_accepted_challenge_makes_a_room_both_join_in_their_seats(server, people):
    a = await people("Ann")
    b = await people("Bob")
    cid, got = await challenge(a, b, options={"target": 250})
    assert got == {
        "id": cid,
        "from": {"id": a.identity, "name": "Ann"},
        "game": "gin_rummy",
        "options": {"target": 250},
    }
    await b.request("challenge_answer", {"id": cid, "accept": True})
    mine = await a.event("challenge_accepted")
    theirs = await b.event("challenge_accepted")
    assert mine["code"] == theirs["code"] and (mine["seat"], theirs["seat"]) == (0, 1)
    assert mine["id"] == theirs["id"] == cid and mine["game"] == "gin_rummy"
    await a.join(mine["code"], "Ann", seat=mine["seat"], identity=a.identity)
    await b.join(theirs["code"], "Bob", seat=theirs["seat"], identity=b.identity)
    table = await server.app[ROOMS_KEY].load_table(mine["code"])
    assert table.game is not None and table.game.name == "gin_rummy"
    assert {p.identity: p.seat for p in table.players.values()} == {a.identity: 0, b.identity: 1}
    with pytest.raises(OpFailed) as err:  # settled once
        await b.request("challenge_answer", {"id": cid, "accept": True})
    assert err.value.code == "unknown_challenge"


async def test_declined_and_cancelled_challenges(people):
    a = await people("Ann")
    b = await people("Bob")
    cid, _ = await challenge(a, b)
    await b.request("challenge_answer", {"id": cid, "accept": False})
    assert (await a.event("challenge_declined")) == {"id": cid}
    cid, _ = await challenge(a, b)
    with pytest.raises(OpFailed) as err:  # only the challenged player answers
        await a.request("challenge_answer", {"id": cid, "accept": True})
    assert err.value.code == "forbidden"
    with pytest.raises(OpFailed) as err:  # only the challenger cancels
        await b.request("challenge_cancel", {"id": cid})
    assert err.value.code == "forbidden"
    await a.request("challenge_cancel", {"id": cid})
    assert (await b.event("challenge_cancelled")) == {
        "id": cid,
        "from": {"id": a.identity, "name": "Ann"},
    }
    with pytest.raises(OpFailed) as err:
        await b.request("challenge_answer", {"id": cid, "accept": True})
    assert err.value.code == "unknown_challenge"
    assert a.events("challenge_accepted") == b.events("challenge_accepted") == []


async def test_a_third_player_cannot_answer_and_unknown_ids_are_refused(people):
    a = await people("Ann")
    b = await people("Bob")
    c = await people("Cat")
    cid, _ = await challenge(a, b)
    for payload in ({"id": cid, "accept": True}, {"id": "nope", "accept": True}):
        with pytest.raises(OpFailed) as err:
            await c.request("challenge_answer", payload)
        assert err.value.code == "unknown_challenge"
    with pytest.raises(OpFailed) as err:
        await c.request("challenge_cancel", {"id": cid})
    assert err.value.code == "unknown_challenge"
    await b.request("challenge_answer", {"id": cid, "accept": False})  # still open for b


async def test_refused_targets(people):
    a = await people("Ann")
    b = await people("Bob")
    away = await people("Away", online=False)
    cases = [
        ({"to": a.identity, "game": "gin_rummy"}, "bad_request"),
        ({"to": away.identity, "game": "gin_rummy"}, "offline"),
        ({"to": "nobody-like-this", "game": "gin_rummy"}, "offline"),
        ({"to": b.identity, "game": "chess"}, "bad_request"),
        ({"to": b.identity, "game": "gin_rummy", "options": {"colour": "red"}}, "bad_request"),
        ({"to": "x", "game": "gin_rummy"}, "bad_request"),
    ]
    for payload, code in cases:
        with pytest.raises(OpFailed) as err:
            await a.request("challenge", payload)
        assert err.value.code == code, payload
    await b.request("relation", {"id": a.identity, "kind": "block", "on": True})
    for x, y in ((a, b), (b, a)):  # a block stops challenges both ways
        with pytest.raises(OpFailed) as err:
            await x.request("challenge", {"to": y.identity, "game": "gin_rummy"})
        assert err.value.code == "blocked"
    assert b.events("challenged") == [] and away.events("challenged") == []


async def test_a_challenge_flood_is_rate_limited(people):
    a = await people("Flood")
    b = await people("Target")
    for _ in range(CHALLENGES_PER_MINUTE):
        await a.request("challenge", {"to": b.identity, "game": "pennies"})
    with pytest.raises(OpFailed) as err:
        await a.request("challenge", {"to": b.identity, "game": "pennies"})
    assert err.value.code == "rate_limited" and err.value.payload["retryable"]
    await b.event("challenged", count=CHALLENGES_PER_MINUTE)
    assert len(b.events("challenged")) == CHALLENGES_PER_MINUTE


async def test_unanswered_challenges_expire(redis_server):
    now = [1_000_000.0]
    srv = await start_server(make_config(redis_server.url, clock=lambda: now[0]))
    a = await social_client(srv.url, "Ann")
    b = await social_client(srv.url, "Bob")
    try:
        cid, _ = await challenge(a, b)
        now[0] += 59
        late, _ = await challenge(a, b)
        now[0] += 2  # the first is 61 s old, the second 2 s
        with pytest.raises(OpFailed) as err:
            await b.request("challenge_answer", {"id": cid, "accept": True})
        assert err.value.code == "challenge_expired"
        with pytest.raises(OpFailed) as err:  # and it is gone
            await b.request("challenge_answer", {"id": cid, "accept": True})
        assert err.value.code == "unknown_challenge"
        await b.request("challenge_answer", {"id": late, "accept": True})
        assert (await a.event("challenge_accepted"))["id"] == late
    finally:
        await a.close()
        await b.close()
        await srv.stop()


async def test_both_players_are_told_when_a_challenge_expires(redis_server):
    srv = await start_server(make_config(redis_server.url, challenge_seconds=0.3))
    a = await social_client(srv.url, "Ann")
    b = await social_client(srv.url, "Bob")
    try:
        cid, _ = await challenge(a, b)
        mine = await a.event("challenge_expired")
        theirs = await b.event("challenge_expired")
        assert (
            mine
            == theirs
            == {"id": cid, "from": {"id": a.identity, "name": "Ann"}, "to": b.identity}
        )
        with pytest.raises(OpFailed) as err:  # announced expired: refused as expired
            await b.request("challenge_answer", {"id": cid, "accept": True})
        assert err.value.code == "challenge_expired"
        with pytest.raises(OpFailed) as err:
            await a.request("challenge_cancel", {"id": cid})
        assert err.value.code == "unknown_challenge"
        # An answered challenge is never announced: a second one, declined at once, is
        # followed by a third that expires; the only announcements are the first and third.
        second, _ = await challenge(a, b)
        await b.request("challenge_answer", {"id": second, "accept": False})
        third, _ = await challenge(a, b)
        assert (await b.event("challenge_expired", count=2))["id"] == third
        assert (await a.event("challenge_expired", count=2))["id"] == third
        assert second not in [d["id"] for d in b.events("challenge_expired")]
    finally:
        await a.close()
        await b.close()
        await srv.stop()


async def test_expiry_is_announced_when_the_process_that_took_the_challenge_is_gone(redis_server):
    one = await start_server(make_config(redis_server.url, challenge_seconds=0.5))
    two = await start_server(
        make_config(redis_server.url, challenge_seconds=0.5, heartbeat_seconds=0.2)
    )
    a = await social_client(one.url, "Ann")
    b = await social_client(two.url, "Bob")
    try:
        cid, _ = await challenge(a, b)
        await a.close()
        await one.stop()  # its expiry timer goes with it: process two's heartbeat sweeps
        got = await b.event("challenge_expired")
        assert got["id"] == cid and got["from"]["name"] == "Ann"
        assert len(b.events("challenge_expired")) == 1
    finally:
        await a.close()
        await b.close()
        await two.stop()
        await one.stop()


class _SweepDuringRead:
    """A real (Redis) social store whose next read of a challenge lets another process's sweep
    run right after it: the interleaving an answer and an expiry can meet in."""

    def __init__(self, social, sweep) -> None:
        self._social, self.sweep, self.swept = social, sweep, None

    def __getattr__(self, name):
        return getattr(self._social, name)

    async def challenge_fields(self, challenge):
        got = await self._social.challenge_fields(challenge)
        self.swept = await self.sweep()
        return got


async def test_a_challenge_swept_while_it_is_answered_is_expired_not_accepted(redis_server):
    from server.social.challenges import Challenges
    from server.store.redis_store import RedisStore

    store = RedisStore(redis_server.url)
    other = Challenges(store.social, expires=60)  # another process, whose clock says it is due
    proxy = _SweepDuringRead(store.social, lambda: other.sweep(now=1_000_100.0))
    mine = Challenges(proxy, expires=60)  # type: ignore[arg-type]
    ch = await mine.open("ann", "Ann", "bob", "gin_rummy", None, now=1_000_000.0)
    # Bob answers at 30 s by this process's clock; the sweep marks it expired meanwhile.
    with pytest.raises(CardtableError) as err:
        await mine.take(ch.id, "bob", "to", now=1_000_030.0)
    assert [o.id for o in proxy.swept] == [ch.id]  # the sweep announced it expired...
    assert err.value.code == "challenge_expired"  # ...so the answer must not make a room
    await store.close()
