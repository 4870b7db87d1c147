"""``cardtable serve --log-format json`` (or CARDTABLE_LOG_FORMAT=json): every line the server
logs is one JSON object with time, level, logger and message, and a room event carries the room
code and the player id it concerns."""

from __future__ import annotations

import json
from pathlib import Path

import aiohttp

from cardtable_client import TableClient
from tests.server.serving import cardtable_command, serving


async def _a_room_and_a_join(url: str) -> tuple[str, str]:
    async with aiohttp.ClientSession() as http, http.post(f"{url}/api/rooms", json={}) as resp:
        assert resp.status == 201, await resp.text()
        code = str((await resp.json())["code"])
    client = await TableClient(url).connect()
    try:
        joined = await client.join(code, "Ana")
    finally:
        await client.close()
    return code, str(joined["player"])


def _records(lines: list[str]) -> list[dict[str, object]]:
    assert lines, "the server logged nothing"
    return [json.loads(line) for line in lines]  # every line is one JSON object


async def test_json_logs_carry_room_and_player(tmp_path: Path):
    args = [*cardtable_command(), "serve", "--port", "0", "--data-dir", str(tmp_path / "var")]
    with serving([*args, "--log-format", "json"]) as (url, lines):
        code, player = await _a_room_and_a_join(url)
    records = _records(lines)
    for record in records:
        assert {"time", "level", "logger", "message"} <= set(record), record
        assert isinstance(record["time"], str) and record["time"].endswith("+00:00")
    created = [r for r in records if str(r["message"]).startswith("room created")]
    assert created and created[0]["room"] == code and "player" not in created[0]
    joined = [r for r in records if r.get("player") == player]
    assert joined and joined[0]["room"] == code and joined[0]["level"] == "info"
    assert joined[0]["logger"] == "cardtable.sockets"


async def test_the_environment_asks_for_json_logs_too(tmp_path: Path):
    args = [*cardtable_command(), "serve", "--port", "0", "--data-dir", str(tmp_path / "var")]
    with serving(args, env={"CARDTABLE_LOG_FORMAT": "json"}) as (url, lines):
        code, _ = await _a_room_and_a_join(url)
    assert any(r.get("room") == code for r in _records(lines))
