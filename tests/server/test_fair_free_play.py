"""Provably fair shuffles in free play, over real sockets, always on: a new room has committed
to shuffle 1 (every view's ``fair`` shows it, before anyone sits); Ben's page adds its value;
Ana's shuffle orders the deck by the committed seed and Ben's value and commits to shuffle 2 (its
log line ends with that commitment); no seed reaches anyone (Ben, Eve watching) until the host
reveals the shuffles, and then the shuffle's record, kept with the room's hands, verifies and is
the deck's real order. Refusals change nothing."""

from __future__ import annotations

import json
from typing import Any

import aiohttp

from cardtable_client import OpFailed, TableClient
from plugins import fair
from server.table.objects import Card, Stack
from tests.server.helpers import server_table

VALUE = "42" * 16


async def _get(url: str) -> tuple[int, Any]:
    async with aiohttp.ClientSession() as http, http.get(url) as r:
        return r.status, await r.json()


async def _refused(c: TableClient, event: str, payload: dict[str, Any], code: str) -> None:
    v = c.version
    try:
        await c.request(event, payload)
    except OpFailed as err:
        assert err.code == code, err.payload
    else:
        raise AssertionError(f"{event} {payload} was accepted")
    assert c.version == v


async def test_fair_shuffles_commit_take_values_and_reveal(server, make_client):
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{server.url}/api/rooms", json={"template": "standard"}) as r,
    ):
        code = (await r.json())["code"]
    ana: TableClient = await make_client()
    ben: TableClient = await make_client()
    eve: TableClient = await make_client()
    await ana.join(code, "Ana")
    await ben.join(code, "Ben", seat=1)
    await eve.join(code, "Eve", seat=None)
    table = await server_table(server, code)
    assert table.fair_shuffle is not None
    first = table.fair_shuffle
    for c in (ana, ben, eve):  # published to every page before any value is taken
        snap = next(data for name, data in c.received if name == "snapshot")
        assert snap["fair"] == {"deal": 1, "commitment": first.commitment, "sent": []}
    await _refused(ben, "fair", {"deal": 2, "value": VALUE}, "wrong_deal")
    await _refused(ana, "host", {"action": "reveal"}, "bad_request")  # nothing shuffled yet
    await _refused(ana, "host", {"action": "fair_shuffles"}, "bad_request")  # no opt-in now
    await _refused(eve, "fair", {"deal": 1, "value": VALUE}, "not_seated")
    await ben.request("fair", {"deal": 1, "value": VALUE})
    await _refused(ben, "fair", {"deal": 1, "value": VALUE}, "already_sent")
    await ana.wait_for(lambda: any("Ben's page added its randomness" in x for x in ana.log))
    await ana.op("shuffle", id="deck")
    await eve.wait_for(lambda: any(line.startswith("Ana shuffled Deck (") for line in eve.log))
    table = await server_table(server, code)
    deck = table.objects["deck"]
    assert isinstance(deck, Stack) and table.fair_shuffle is not None
    second = table.fair_shuffle
    said = f"Ana shuffled Deck (fair shuffle 1; next commitment {second.commitment})"
    assert said in eve.log
    await _refused(ben, "host", {"action": "reveal"}, "forbidden")  # the host's choice
    assert second.deal == 2 and second.seed != first.seed
    faces = [c.face for c in (table.objects[cid] for cid in deck.cards) if isinstance(c, Card)]
    # Nobody was sent a seed while the shuffles were secret; no record is served yet.
    for c in (ana, ben, eve):
        said = json.dumps(c.received, default=repr)
        assert first.seed not in said and second.seed not in said
    assert (await _get(f"{server.url}/api/rooms/{code}/hands"))[1] == {"hands": []}
    await ana.request("host", {"action": "reveal"})
    await eve.wait_for(lambda: any(first.seed in line for line in eve.log))
    assert not any(second.seed in line for line in eve.log)  # the next shuffle stays secret
    status, listing = await _get(f"{server.url}/api/rooms/{code}/hands")
    assert status == 200 and [(h["n"], h["game"]) for h in listing["hands"]] == [(1, "free")]
    status, record = await _get(f"{server.url}/api/rooms/{code}/hands/1")
    assert status == 200 and record["seed"] == first.seed and record["deal"] == 1
    assert record["values"] == [None, VALUE, None, None]
    assert record["order"] == faces  # the deck lies in the order the record says
    verdict = fair.verify(record)
    assert verdict.ok, verdict.problems
    tampered = dict(record, values=[None, "43" * 16, None, None])
    assert not fair.verify(tampered).ok
    await _refused(ana, "host", {"action": "reveal"}, "bad_request")  # shuffle 2: not made


async def test_rules_off_hands_the_pages_free_plays_next_shuffle(server, make_client):
    """Back to free play, the pages learn of the shuffle waiting for their values at once (the
    rules-off delta carries ``fair``), so a seated page adds its value before the next shuffle."""
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{server.url}/api/rooms", json={"game": "gin_rummy"}) as r,
    ):
        code = (await r.json())["code"]
    ana: TableClient = await make_client()
    await ana.join(code, "Ana")
    ack = await ana.request("host", {"action": "game", "game": None})
    await ana.wait_version(ack["v"])
    table = await server_table(server, code)
    assert table.game is None and table.fair_shuffle is not None
    delta = next(d for name, d in ana.received if name == "delta" and d["v"] == ack["v"])
    pending = {"deal": 1, "commitment": table.fair_shuffle.commitment, "sent": []}
    assert delta.get("fair") == pending
    await ana.request("fair", {"deal": 1, "value": VALUE})  # taken: free play's shuffle 1
