"""Rummy and Pennies over real sockets: a person and computer players; illegal melds dropped on
the table are refused with the rule's reason; in Pennies the buying window asks the person
with a prompt and a countdown, and a buy goes through. Pennies' clarified rules at the table:
the first meld laid one set at a time, sets short of it given back at the discard (with the
reason, and ids as "Hidden information" says), the discarder never offered its discard back,
and the player naming the rank of a set that could be two."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest
from msgspec.structs import replace

from cardtable_client import OpFailed, TableClient
from plugins.pennies.chart import default_chart
from plugins.pennies.rules import ENGINE
from server.net.http import ROOMS_KEY
from tests.conftest import make_config, start_server
from tests.plugins.test_pennies_rules import deal, ok
from tests.server.helpers import game_after, server_table


async def game_room(url: str, game: str, players: int) -> tuple[str, TableClient, object]:
    srv = await start_server(make_config(url, bot_delay_seconds=0.0))
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{srv.url}/api/rooms", json={"game": game}) as r,
    ):
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
            await ana.wait_for(
                lambda: (
                    bool(ana.game and ana.game["controls"])
                    or ana.game["phase"] in ("round_over", "game_over")
                ),
                timeout=60,
            )
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
        assert refused["rule"] in (
            "requirement_not_met",
            "mixed_ranks",
            "too_few_cards",
            "duplicate_card",
            "all_wild",
        )
        table = await server_table(srv, code)
        assert table.game.state["pennies"][0] <= 9  # the penny was paid
        assert table.objects["spent"].count >= 1
    finally:
        await ana.close()
        await srv.stop()


# ------------------------------------------------- Pennies: the clarified rules at the table

ANA = ["C5", "D5", "H5", "C7", "D8", "H10", "S11", "C12", "D13", "H3", "H1"]
# The computer holds no ace and no wild card, so it never wants Ana's ace of hearts.
COMPUTER = ["C6", "D7", "H8", "S9", "C10", "D11", "H12", "S13", "C3", "D4", "H6"]


async def _pennies_position(
    redis_url: str, hands: list[list[str]], chart_row: dict[str, Any] | None = None
) -> tuple[str, Any, Any]:
    """A Pennies room (Ana at seat 0, a computer at seat 1, Ben watching) put in round 1 with
    these hands, Ana to meld or discard: she declined the upcard, the computer passed on it."""
    code, ana, srv = await game_room(redis_url, "pennies", 2)
    options = {"chart": [chart_row, *default_chart()[1:]]} if chart_row else None
    state = deal(2, hands, "S2", ["C2"], options=options)
    state = ok(ok(state, 0, {"type": "decline"}), 1, {"type": "pass"})
    await srv.app[ROOMS_KEY].set_game_state(code, ENGINE.dump(state))
    await ana.wait_for(lambda: ana.game["phase"] == "play" and len(ana.hand()) == 12)
    ben = await srv.client()
    await ben.join(code, "Ben", seat=None)
    return code, ana, (srv, ben)


async def test_pennies_first_meld_one_set_at_a_time_goes_back_at_the_discard(redis_server):
    code, ana, (srv, ben) = await _pennies_position(redis_server.url, [ANA, COMPUTER])
    try:
        faces = ana.hand_faces()
        fives = ["C5", "D5", "H5"]
        await ana.op("move_many", ids=[faces[f] for f in fives], to="newmeld")
        await ana.wait_for(lambda: len(ana.game["view"]["melds"][0]) == 1)
        assert ana.game["view"]["opened"] == [False, False]  # one set of two: not yet made
        assert "Still to lay this turn: one set of 3" in ana.game["hint"]
        await ben.wait_for(lambda: "m0x0" in ben.objects)
        shown = list(ben.objects["m0x0"]["cards"])
        assert sorted(ben.objects[c]["face"] for c in shown) == sorted(fives)
        # Ana discards: the fives go back to her hand, the reason in the log, for everyone.
        mark, mark_ana = len(ben.received), len(ana.received)
        ack = await ana.op("move", id=ana.hand_faces()["H1"], to="discard")
        await ben.wait_version(ack["v"])
        assert (
            "Ana took back the 5 of clubs, 5 of diamonds and 5 of hearts: the first meld this "
            "round must be two sets of 3, laid down in one turn (wild: jokers); a meld of 3 5s "
            "does not meet that. Ana discarded the ace of hearts"
        ) in ben.log
        await ana.wait_version(ack["v"])
        assert all(f in ana.hand_faces() for f in fives) and "m0x0" not in ana.objects
        # Hidden information: Ben held the ids face up in the zone; they leave his view (in
        # his delta's del) and nothing of Ana's hand shows to him.
        deleted = {i for name, d in ben.received[mark:] if name == "delta" for i in d["del"]}
        assert set(shown) <= deleted and not set(shown) & set(ben.objects)
        assert "cards" not in ben.objects["hand0"] and ben.objects["hand0"]["n"] == 11
        assert not set(ben.faces_seen()) & set(ana.hand())
        # The discarder is never offered its discard back: the computer declines the ace and
        # plays on; Ana is next asked on her own turn.
        await ana.wait_for(
            lambda: ana.game["phase"] == "buy" and ana.game["view"]["turn"] == 0, timeout=30
        )
        games, game = [], None  # every game view Ana held since the mark
        for i, (name, d) in enumerate(ana.received):
            if name in ("snapshot", "delta"):
                game = game_after(game, d)
                if i >= mark_ana and name == "delta" and game:
                    games.append(game)
        assert not any(
            ((g["view"] or {}).get("buy_window") or {}).get("player") == 0 for g in games
        )
        assert any(
            line.startswith("Computer") and "declined the ace of hearts" in line for line in ana.log
        )
        assert not any(line.startswith("Ana passed on") for line in ana.log)
        table = await server_table(srv, code)
        assert table.game.state["last_move"]["player"] == 1  # the computer discarded
    finally:
        await ben.close()
        await ana.close()
        await srv.stop()


async def test_pennies_the_player_names_the_rank_of_a_set_that_could_be_two(redis_server):
    chart_row = {"first_meld": [3], "wild": ["joker", "2", "ace"]}
    hand = ["H2", "S1", "J1", "C7", "D8", "H10", "S11", "C12", "D13", "H3", "S4"]
    code, ana, (srv, ben) = await _pennies_position(redis_server.url, [hand, COMPUTER], chart_row)
    try:
        assert "rank_chooser" in ana.game["widgets"]  # the page asks which rank
        faces = ana.hand_faces()
        trio = ["H2", "S1", "J1"]
        with pytest.raises(OpFailed) as err:  # the table never picks the rank for the player
            await ana.op("move_many", ids=[faces[f] for f in trio], to="newmeld")
        assert err.value.code == "rules" and err.value.payload["rule"] == "rank_needed"
        assert err.value.payload["message"].endswith(
            "could be a set of aces or of 2s: say which rank."
        )
        assert ana.game["view"]["melds"][0] == []  # nothing changed
        await ana.request(
            "game", {"action": {"type": "meld", "melds": [{"cards": trio, "rank": 1}]}}
        )
        await ana.wait_for(lambda: len(ana.game["view"]["melds"][0]) == 1)
        assert ana.game["view"]["melds"][0][0]["rank"] == 1 and ana.game["view"]["opened"][0]
        await ben.wait_for(lambda: "m0x0" in ben.objects)
        assert any("a set of aces" in line for line in ben.log)
    finally:
        await ben.close()
        await ana.close()
        await srv.stop()


async def test_pennies_a_rebuilt_stock_links_nothing_seen_on_the_discard_pile(redis_server):
    """The stock is rebuilt as often as it runs out (rule 9): each rebuild is a shuffle, so the
    cards get new ids and no id seen on the discard pile turns up face down in the stock."""
    code, ana, srv = await game_room(redis_server.url, "pennies", 2)
    ben = await srv.client()
    try:
        base = deal(2, [ANA, COMPUTER], "S2", ["C2"])
        state = replace(base, stock=(), discard=(*base.stock, "S2"), reshuffles=3)
        await srv.app[ROOMS_KEY].set_game_state(code, ENGINE.dump(state))
        await ana.wait_for(lambda: ana.game["view"]["stock_count"] == 0)
        await ben.join(code, "Ben", seat=None)
        pile = set(ben.objects["discard"]["cards"])
        assert len(pile) == len(base.stock) + 1 and ben.objects["stock"]["cards"] == []
        await ana.request("game", {"action": {"type": "decline"}})
        await ben.wait_for(lambda: ben.game["view"]["reshuffles"] == 4)  # no limit any more
        stock = set(ben.objects["stock"]["cards"])
        assert len(stock) == len(base.stock) - 1 and not stock & pile
        assert len(ben.objects["discard"]["cards"]) == 1
    finally:
        await ben.close()
        await ana.close()
        await srv.stop()
