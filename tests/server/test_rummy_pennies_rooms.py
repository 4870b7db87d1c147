"""Rummy and Pennies over real sockets: a person and computer players; illegal melds dropped on
the table are refused with the rule's reason; in Pennies the buying window asks the person
with a prompt and a countdown, and a buy goes through."""

from __future__ import annotations

import aiohttp
import pytest

from server.client import OpFailed, TableClient
from tests.conftest import make_config, start_server
from tests.server.helpers import server_table


async def game_room(url: str, game: str, players: int) -> tuple[str, TableClient, object]:
    srv = await start_server(make_config(url, bot_delay_seconds=0.0))
    async with aiohttp.ClientSession() as http, http.post(
        f"{srv.url}/api/rooms", json={"game": game}
    ) as r:
        assert r.status == 201, await r.text()
        code = str((await r.json())["code"])
    ana = await srv.client()
    await ana.join(code, "Ana")
    for seat in range(1, players):
        await ana.request("host", {"action": "bot", "seat": seat})
    if ana.game is not None and ana.game["waiting"]:
        await ana.request("host", {"action": "start"})
    await ana.wait_for(lambda: ana.game is not None and not ana.game["waiting"])
    return code, ana, srv


def _not_a_meld(faces: list[str]) -> list[str] | None:
    """Three cards of the hand that are neither a set nor a run (mixed ranks and suits)."""
    for a in faces:
        for b in faces:
            for c in faces:
                trio = [a, b, c]
                if len(set(trio)) < 3:
                    continue
                ranks = {x[1:] for x in trio}
                suits = {x[0] for x in trio}
                if len(ranks) == 3 and len(suits) >= 2:
                    return trio
    return None


async def test_rummy_refuses_a_mixed_meld_with_the_reason(redis_server):
    code, ana, srv = await game_room(redis_server.url, "rummy", 3)
    try:
        assert len(ana.hand()) == 7 and ana.game["players"][0]["name"] == "Ana"
        for _ in range(100):
            await ana.wait_for(lambda: bool(ana.game and ana.game["controls"]), timeout=30)
            kinds = {c["action"]["type"] for c in ana.game["controls"]}
            if "draw" in kinds:
                draw = next(c for c in ana.game["controls"] if c["action"]["type"] == "draw")
                src = ana.objects[draw["source"]]
                await ana.op("move", id=src["cards"][-1], to=f"hand{ana.seat}")
                continue
            break
        faces = ana.hand_faces()
        trio = _not_a_meld(list(faces))
        assert trio is not None
        with pytest.raises(OpFailed) as err:
            await ana.op("move_many", ids=[faces[f] for f in trio], to="newmeld")
        assert err.value.code == "rules" and err.value.payload["rule"] == "not_a_meld"
        assert "run" in err.value.payload["message"] or "set" in err.value.payload["message"]
        with pytest.raises(OpFailed) as err:  # two cards can't be laid off at once
            await ana.op("move_many", ids=[faces[f] for f in trio[:2]], to="stock")
        assert err.value.code == "rules"
        # A legal discard still goes through after the refusals.
        discard = next(c for c in ana.game["controls"] if c["action"]["type"] == "discard")
        ack = await ana.op("move", id=faces[discard["cards"][0]], to="discard")
        table = await server_table(srv, code)
        assert table.version >= ack["v"]
        assert any(line.startswith("Ana discarded the ") for line in ana.log)
    finally:
        await ana.close()
        await srv.stop()


async def test_pennies_buy_prompt_and_requirement_refusal(redis_server):
    code, ana, srv = await game_room(redis_server.url, "pennies", 3)
    try:
        contract = next(o for o in ana.objects.values() if o["id"] == "contract")
        assert contract["t"] == "label" and contract["text"].startswith("Round 1: two sets of 3")
        assert ana.objects["pennies0"]["count"] == 10
        bought = False
        refused = None
        for _ in range(400):
            await ana.wait_for(lambda: bool(ana.game and ana.game["controls"])
                               or ana.game["phase"] in ("round_over", "game_over"), timeout=60)
            g = ana.game
            if g["phase"] in ("round_over", "game_over"):
                break
            prompts = [c for c in g["controls"] if c["kind"] == "prompt"]
            if prompts:
                assert g["timer"] is not None or g["phase"] == "buy"
                buy = next((c for c in prompts if c["action"]["type"] == "buy"), None)
                if buy is not None and not bought:
                    await ana.request("game", {"action": buy["action"]})
                    bought = True
                else:
                    no = next(c for c in prompts if c["action"]["type"] != "buy")
                    await ana.request("game", {"action": no["action"]})
                continue
            faces = ana.hand_faces()
            if refused is None and not g["view"]["opened"][0]:
                trio = [f for f in faces][:3]
                try:
                    await ana.op("move_many", ids=[faces[f] for f in trio], to="newmeld")
                except OpFailed as err:
                    refused = err.payload
            discard = next((c for c in g["controls"] if c["action"]["type"] == "discard"), None)
            if discard is None:
                await ana.request("game", {"action": g["controls"][0]["action"]})
                continue
            await ana.op("move", id=ana.hand_faces()[discard["cards"][0]], to="discard")
            if bought and refused is not None:
                break
        assert bought, "Ana was never offered the discard"
        assert refused is not None and refused["code"] == "rules"
        assert refused["rule"] in ("requirement_not_met", "mixed_ranks", "too_few_cards",
                                   "duplicate_card", "all_wild")
        table = await server_table(srv, code)
        assert table.game.state["pennies"][0] <= 9  # the penny was paid
        assert table.objects["spent"].count >= 1
    finally:
        await ana.close()
        await srv.stop()
