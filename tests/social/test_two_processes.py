"""Playing with people across two server processes on one Redis: the online list, a challenge
sent on one process and accepted on the other, chat and mutes between them."""

from __future__ import annotations

import secrets

from tests.conftest import make_config, start_server
from tests.social.helpers import social_client


async def test_online_list_challenge_and_chat_across_processes(redis_server):
    one = await start_server(make_config(redis_server.url))
    two = await start_server(make_config(redis_server.url))
    p = "Yy" + secrets.token_hex(3)
    a = await social_client(one.url, f"{p}Ann")
    b = await social_client(two.url, f"{p}Bob")
    c = await social_client(two.url, f"{p}Cat")
    try:
        seen = await a.request("lobby", {"q": p})
        assert sorted(x["name"] for x in seen["players"]) == [f"{p}Ann", f"{p}Bob", f"{p}Cat"]
        sent = await a.request("challenge", {"to": b.identity, "game": "gin_rummy"})
        got = await b.event("challenged")
        assert got["id"] == sent["id"] and got["from"] == {"id": a.identity, "name": f"{p}Ann"}
        await b.request("challenge_answer", {"id": sent["id"], "accept": True})
        mine, theirs = await a.event("challenge_accepted"), await b.event("challenge_accepted")
        assert mine["code"] == theirs["code"] and (mine["seat"], theirs["seat"]) == (0, 1)
        code = mine["code"]
        await a.join(code, "Ann", seat=0, identity=a.identity)
        await b.join(code, "Bob", seat=1, identity=b.identity)
        await c.request("relation", {"id": a.identity, "kind": "mute", "on": True})
        await c.join(code, "Cat", seat=None, identity=c.identity)  # watching
        await a.request("chat", {"text": "good luck"})
        await b.request("chat", {"text": "you too"})
        assert (await b.event("chat"))["text"] == "good luck"  # one -> two
        assert (await a.event("chat", count=2))["text"] == "you too"  # two -> one
        await c.event("chat", lambda d: d["text"] == "you too")
        assert [d["text"] for d in c.events("chat")] == ["you too"]  # c muted a
        # A sent on one process and cancelled there reaches b on the other.
        again = await a.request("challenge", {"to": b.identity, "game": "pennies"})
        await a.request("challenge_cancel", {"id": again["id"]})
        assert (await b.event("challenge_cancelled"))["id"] == again["id"]
        await b.close()
        for _ in range(100):  # the disconnect lands on process two after the socket closes
            names = [x["name"] for x in (await a.request("lobby", {"q": p}))["players"]]
            if f"{p}Bob" not in names:
                break
        assert names == [f"{p}Ann", f"{p}Cat"]
    finally:
        for x in (a, b, c):
            await x.close()
        await one.stop()
        await two.stop()
