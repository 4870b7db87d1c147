"""Limits that hold whoever sends, over real sockets (issue 17): challenges one person receives
from people they have not favourited, whatever identities send them (identities are free); chat
lines from sockets without ``hello``, per client address rather than per connection."""

from __future__ import annotations

import pytest

from cardtable_client import OpFailed
from server.config import parse_networks
from tests.conftest import make_config, new_room, start_server
from tests.social.helpers import SocialClient, social_client


async def test_fresh_identities_cannot_flood_one_person_with_challenges(redis_server):
    now = [2_000_000.0]
    srv = await start_server(make_config(redis_server.url, clock=lambda: now[0]))
    target = await social_client(srv.url, "Target")
    senders = [await social_client(srv.url, f"Fresh {i}") for i in range(4)]
    friend = await social_client(srv.url, "Friend")
    clients = [target, friend, *senders]

    async def send(sender: SocialClient) -> str | None:
        """The challenge's id, or None when it is refused as ``rate_limited``."""
        try:
            return (await sender.request("challenge", {"to": target.identity, "game": "pennies"}))[
                "id"
            ]
        except OpFailed as err:
            assert err.code == "rate_limited" and err.payload["retryable"]
            return None

    try:
        got = [await send(s) for s in senders for _ in range(10)]  # 40 in one instant
        assert len([g for g in got if g]) == 10
        refusals = [e for s in senders for e in s.errors if e["code"] == "rate_limited"]
        assert len(refusals) == 30
        assert {e["message"] for e in refusals} == {
            "This player has been sent too many challenges lately; try again in 60 seconds."
        }
        await target.request("relation", {"id": friend.identity, "kind": "favourite", "on": True})
        assert await send(friend) is not None  # a favourite gets through, and is not counted
        await target.event("challenged", count=11)
        assert [d["from"]["id"] for d in target.events("challenged")][-1] == friend.identity

        # The minute slides on; the hour holds 30 in all.
        for sender in senders[1:3]:
            now[0] += 61
            assert all([await send(sender) for _ in range(10)])
        now[0] += 61
        assert await send(senders[3]) is None
        assert senders[3].errors[-1]["message"] == (
            "This player has been sent too many challenges lately; try again in 57 minutes."
        )
        assert await send(friend) is not None
        await target.event("challenged", count=32)
        assert len(target.events("challenged")) == 32
    finally:
        for c in clients:
            await c.close()
        await srv.stop()


async def guest(url: str, address: str) -> SocialClient:
    """A socket without ``hello``, from ``address`` (said by the trusted proxy in front)."""
    c = SocialClient(url)
    await c.sio.connect(url, transports=["websocket"], headers={"X-Forwarded-For": address})
    return c


async def test_chat_without_hello_is_limited_per_address_not_per_socket(redis_server):
    now = [3_000_000.0]
    srv = await start_server(
        make_config(
            redis_server.url, clock=lambda: now[0], trusted_proxies=parse_networks(["127.0.0.1/32"])
        )
    )
    code = await new_room(srv)
    clients: list[SocialClient] = []
    try:
        for i in range(3):  # three sockets from one address
            clients.append(await guest(srv.url, "198.51.100.7"))
            await clients[-1].join(code, f"Guest {i}", seat=None)
        for i, c in enumerate([*clients, *clients[:2]]):  # 5 lines: the most in 10 s
            await c.request("chat", {"text": f"line {i}"})
        clients.append(await guest(srv.url, "198.51.100.7"))  # a fresh socket starts nothing
        await clients[-1].join(code, "Fresh", seat=None)
        for c in (clients[2], clients[3]):
            with pytest.raises(OpFailed) as err:
                await c.request("chat", {"text": "one more"})
            assert err.value.code == "rate_limited" and err.value.payload["retryable"]
            assert err.value.payload["message"] == (
                "Slow down: at most 5 chat lines in 10 seconds from your address; try again "
                "in 10 s."
            )
        clients.append(await guest(srv.url, "198.51.100.8"))  # another address: its own
        await clients[-1].join(code, "Elsewhere", seat=None)
        await clients[-1].request("chat", {"text": "from elsewhere"})
        ann = await social_client(srv.url, "Ann")  # an identity on that address: its own too
        clients.append(ann)
        await ann.join(code, "Ann", seat=None)
        await ann.request("chat", {"text": "from Ann"})
        now[0] += 10
        await clients[3].request("chat", {"text": "later"})
        await ann.event("chat", lambda d: d["text"] == "later")
        assert [d["text"] for d in ann.events("chat")] == ["from Ann", "later"]
        assert "one more" not in [d["text"] for d in clients[0].events("chat")]
    finally:
        for c in clients:
            await c.close()
        await srv.stop()
