"""Provably fair deals in a rule room, over real sockets: the server commits to deal 1's seed
when the game is chosen, a seated page adds its value, the deal is dealt from the key the spec
gives, and when the hand is over its seed is revealed and its record (kept beside the room,
served over HTTP) verifies with ``plugins.fair.verify``; a changed card or seed byte fails it.
Every message the player and a spectator receive is recorded: neither the seed nor the deal
key of a deal in progress ever reaches them, and a hand in progress is refused over HTTP."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import aiohttp

from cardtable_client import OpFailed, TableClient
from plugins import fair
from tests.conftest import make_config, start_server
from tests.server.helpers import server_table
from tests.server.serving import cardtable_command

VALUE = "0123456789abcdef0123456789abcdef"


async def _room(url: str) -> str:
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{url}/api/rooms", json={"game": "spades", "options": {"target": 200}}) as r,
    ):
        assert r.status == 201, await r.text()
        return str((await r.json())["code"])


async def _get(url: str) -> tuple[int, Any]:
    async with aiohttp.ClientSession() as http, http.get(url) as r:
        return r.status, await r.json()


def _text(messages: list[tuple[str, Any]]) -> str:
    return json.dumps([m for m in messages], default=repr)


def _ready(c: TableClient) -> bool:
    g = c.game
    return (
        g is not None
        and not g["waiting"]
        and (bool(g["controls"]) or g["phase"] in ("deal_over", "game_over"))
    )


async def _play_deal(ana: TableClient) -> None:
    """Ana bids and plays whatever the game view offers first, until the deal is over."""
    for _ in range(200):
        await ana.wait_for(lambda: _ready(ana), timeout=30)
        game = ana.game
        assert game is not None
        if game["phase"] in ("deal_over", "game_over"):
            return
        controls = game["controls"]
        bids = [c for c in controls if c.get("group") == "bid"]
        if bids:
            await ana.request("game", {"action": bids[0]["action"]})
            continue
        drags = [c for c in controls if c["kind"] == "drag"]
        face = drags[0]["cards"][0]
        await ana.op("move", id=ana.hand_faces()[face], to=drags[0]["dest"])
    raise AssertionError("the deal did not end")


def _cli_verify(record: dict[str, Any], where: Path) -> subprocess.CompletedProcess[str]:
    where.write_text(json.dumps(record))
    return subprocess.run(
        [*cardtable_command(), "verify", str(where)], capture_output=True, text=True, timeout=60
    )


async def test_a_deal_is_committed_dealt_from_the_players_values_and_verifies(
    redis_server, tmp_path
):
    srv = await start_server(make_config(redis_server.url, bot_delay_seconds=0.0))
    try:
        code = await _room(srv.url)
        ana = await srv.client()
        eve = await srv.client()
        await ana.join(code, "Ana")
        await eve.join(code, "Eve", seat=None)
        pending = ana.game["fair"] if ana.game else None
        assert pending is not None and pending["deal"] == 1 and pending["sent"] == []
        snap = next(data for name, data in ana.received if name == "snapshot")
        assert any(pending["commitment"] in line for line in snap["log"])
        await ana.request("fair", {"deal": 1, "value": VALUE})
        await eve.wait_for(lambda: any("Ana's page added its randomness" in x for x in eve.log))
        assert ana.game is not None and ana.game["fair"]["sent"] == [0]
        for seat in (1, 2, 3):
            await ana.request("host", {"action": "bot", "seat": seat})
        await ana.wait_for(lambda: ana.game is not None and not ana.game["waiting"])
        # Deal 1 is being played: its record is refused, and deal 2's commitment is out.
        status, body = await _get(f"{srv.url}/api/rooms/{code}/hands/1")
        assert status == 409 and body["code"] == "hand_not_over"
        assert (await _get(f"{srv.url}/api/rooms/{code}/hands"))[1] == {"hands": []}
        assert ana.game["fair"]["deal"] == 2
        # No card is played before Ana bids: so far the spectator saw no face, Ana her own only.
        seen_at_start = {"ana": _text(ana.received), "eve": _text(eve.received)}
        table = await server_table(srv, code)
        assert table.game is not None and table.game.fair_now is not None
        secret = table.game.fair_now.seed
        next_secret = table.game.fair_next.seed  # type: ignore[union-attr]
        key = fair.deal_key(bytes.fromhex(secret), code, 1, [VALUE, None, None, None]).hex()
        await _play_deal(ana)
        await eve.wait_for(lambda: any(secret in line for line in eve.log))
        # Before the reveal, nobody was sent the seed or the key; the next deal's seed never.
        for c in (ana, eve):
            said = _text(c.received)
            cut = said.index(secret)
            assert key not in said and next_secret not in said
            assert "Deal 1 is over" in said[cut - 200 : cut]
        status, listing = await _get(f"{srv.url}/api/rooms/{code}/hands")
        assert status == 200 and [h["n"] for h in listing["hands"]] == [1]
        status, record = await _get(f"{srv.url}/api/rooms/{code}/hands/1")
        assert status == 200
        assert record["seed"] == secret and record["deal"] == 1 and record["game"] == "spades"
        assert record["values"] == [VALUE, None, None, None]  # computers send nothing
        assert [p["computer"] for p in record["players"]] == [False, True, True, True]
        verdict = fair.verify(record)
        assert verdict.ok, verdict.problems
        hers = {
            f for f, where in zip(record["order"], record["dealt"], strict=True) if where == "0"
        }
        assert len(hers) == 13 and all(f'"{f}"' in seen_at_start["ana"] for f in hers)
        for face in record["deck"]:
            assert f'"{face}"' not in seen_at_start["eve"], face
            assert face in hers or f'"{face}"' not in seen_at_start["ana"], face
        assert sorted(record["order"]) == sorted(record["deck"]) and len(record["deck"]) == 52
        assert len(record["actions"]) >= 4 + 52  # four bids, 52 cards (and the gathers)
        assert len(record["steps"]) == len(record["actions"]) + 1
        assert all(not h for h in record["steps"][-1]["hands"].values())
        # One card moved, or one byte of the seed changed: verification fails.
        swapped = dict(record, order=[record["order"][1], record["order"][0], *record["order"][2:]])
        assert not fair.verify(swapped).ok
        flipped = dict(record, seed=("0" if secret[0] != "0" else "1") + secret[1:])
        assert not fair.verify(flipped).ok
        # ``cardtable verify`` says the same of the downloaded record, and of the tampered one.
        good = _cli_verify(record, tmp_path / "hand.json")
        assert good.returncode == 0 and "fair" in good.stdout, good.stdout + good.stderr
        bad = _cli_verify(swapped, tmp_path / "swapped.json")
        assert bad.returncode == 1 and "NOT verified" in bad.stdout, bad.stdout + bad.stderr
        status, body = await _get(f"{srv.url}/api/rooms/{code}/hands/2")
        assert status == 404 and body["code"] == "no_such_hand"
        # Deal 2 was committed to when deal 1 was dealt: Ana's page adds its value, and the move
        # that deals it (next_deal) deals from the seed and that value.
        value2 = "fedcba98" * 4
        await ana.request("fair", {"deal": 2, "value": value2})
        await ana.request("game", {"action": {"type": "next_deal"}})
        await ana.wait_for(lambda: ana.game is not None and ana.game["fair"]["deal"] == 3)
        status, body = await _get(f"{srv.url}/api/rooms/{code}/hands/2")
        assert status == 409 and body["code"] == "hand_not_over"
        await _play_deal(ana)
        await eve.wait_for(lambda: any(next_secret in line for line in eve.log))
        for c in (ana, eve):
            said = _text(c.received)
            cut = said.index(next_secret)
            assert "Deal 2 is over" in said[cut - 200 : cut]
        status, second = await _get(f"{srv.url}/api/rooms/{code}/hands/2")
        assert status == 200 and second["seed"] == next_secret and second["deal"] == 2
        assert second["values"] == [value2, None, None, None]
        verdict = fair.verify(second)
        assert verdict.ok, verdict.problems
        assert sorted(second["order"]) == sorted(second["deck"]) and len(second["deck"]) == 52
        assert second["order"] != record["order"]
        await ana.close()
        await eve.close()
    finally:
        await srv.stop()


async def test_bad_fair_values_are_refused_and_change_nothing(server, make_client):
    code = await _room(server.url)
    ana: TableClient = await make_client()
    eve: TableClient = await make_client()
    await ana.join(code, "Ana")
    await eve.join(code, "Eve", seat=None)
    await ana.wait_for(lambda: ana.game is not None)
    v = ana.version
    cases: list[tuple[TableClient, dict[str, Any], str]] = [
        (eve, {"deal": 1, "value": VALUE}, "not_seated"),
        (ana, {"deal": 2, "value": VALUE}, "wrong_deal"),
        (ana, {"deal": 0, "value": VALUE}, "bad_request"),
        (ana, {"deal": 1, "value": VALUE.upper()}, "bad_request"),
        (ana, {"deal": 1, "value": VALUE[:-1]}, "bad_request"),
        (ana, {"deal": 1, "value": VALUE, "seed": "00"}, "bad_request"),
        (ana, {"deal": "1", "value": VALUE}, "bad_request"),
    ]
    for who, payload, want in cases:
        try:
            await who.request("fair", payload)
        except OpFailed as err:
            assert err.code == want, (payload, err.payload)
            assert err.payload["message"]
        else:
            raise AssertionError(f"{payload} was accepted")
    assert ana.version == v and ana.game is not None and ana.game["fair"]["sent"] == []
    await ana.request("fair", {"deal": 1, "value": VALUE})  # the connection is still good
    try:
        await ana.request("fair", {"deal": 1, "value": "f" * 32})
    except OpFailed as err:
        assert err.code == "already_sent"
    else:
        raise AssertionError("a second value for the same deal was accepted")
    table = await server_table(server, code)
    assert table.game is not None and table.game.fair_next is not None
    assert table.game.fair_next.values == {0: VALUE}
