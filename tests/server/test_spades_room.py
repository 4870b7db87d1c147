"""Spades over real sockets: one person and three computers play a deal to its score, the person
acting only through what the game view offers (controls) and table drags; illegal plays are
refused with the rule's reason; the trick is gathered by the server's own timed move. With the
room option ``fill`` a computer plays for a seat its person left (stood up, or removed after the
grace period) until someone sits there; the person who left comes back to watch, their seat
taken."""

from __future__ import annotations

from typing import Any

import aiohttp

from cardtable_client import OpFailed, TableClient
from plugins.spades.rules import ENGINE, SpadesState, stack_deck
from server.net.http import ROOMS_KEY
from tests.conftest import RunningServer, make_config, start_server
from tests.server.helpers import server_table


def mixed_hands() -> list[list[str]]:
    """Four hands of 13, each holding every suit (4-3-3-3): nobody may lead a spade to the
    first trick, and whatever suit is led, every other player holds it and something else, so
    each player's first play always has an illegal card on offer."""
    hands: list[list[str]] = [[], [], [], []]
    for rank in range(1, 14):
        for i, suit in enumerate("CDHS"):
            hands[(i + rank) % 4].append(f"{suit}{rank}")
    return hands


HANDS = mixed_hands()


async def deal_known_hands(srv: RunningServer, code: str, dealer: int | None = None) -> SpadesState:
    """Replace the running game's deal with :data:`HANDS` (player p gets ``HANDS[p]``), dealt
    by the game's own first dealer or, given ``dealer``, by a seed that draws that dealer."""
    table = await server_table(srv, code)
    assert table.game is not None
    options = table.game.options
    seed = ENGINE.load(table.game.state).seed
    if dealer is not None:
        seed = next(s for s in range(1000) if ENGINE.new_game(4, options, s).dealer == dealer)
    first = ENGINE.new_game(4, options, seed).dealer
    state = ENGINE.new_game(4, options, seed, deck=stack_deck(HANDS, first))
    assert [sorted(h) for h in state.hands] == [sorted(h) for h in HANDS]
    await srv.app[ROOMS_KEY].set_game_state(code, ENGINE.dump(state))
    return state


async def current_deal(c: TableClient, state: SpadesState) -> None:
    """Wait until ``c``, seated, holds its hand of the deal ``state``."""
    assert c.seat is not None
    await c.wait_for(lambda: sorted(c.hand_faces()) == sorted(state.hands[c.seat or 0]))


async def spades_room(url: str) -> str:
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{url}/api/rooms", json={"game": "spades", "options": {"target": 200}}) as r,
    ):
        assert r.status == 201, await r.text()
        body = await r.json()
    assert body["game"] == "spades" and body["seats"] == 4
    return str(body["code"])


def _ready(c: TableClient) -> bool:
    g = c.game
    return (
        g is not None
        and not g["waiting"]
        and (bool(g["controls"]) or g["phase"] in ("deal_over", "game_over"))
    )


async def test_a_person_and_three_computers_play_a_deal_to_the_score(redis_server):
    srv = await start_server(make_config(redis_server.url, bot_delay_seconds=0.0))
    try:
        code = await spades_room(srv.url)
        ana = await srv.client()
        await ana.join(code, "Ana")
        assert ana.game is not None and ana.game["waiting"]
        assert ana.game["status"] == "Waiting for players: 1 of 4 seated"
        for seat in (1, 2, 3):
            await ana.request("host", {"action": "bot", "seat": seat})
        await ana.wait_for(lambda: ana.game is not None and not ana.game["waiting"])
        game = ana.game
        assert [p["seat"] for p in game["players"]] == [0, 1, 2, 3] and game["me"] == 0
        assert [p["team"] for p in game["players"]] == [0, 1, 0, 1]
        assert len(ana.hand()) == 13 and game["widgets"] == ["bid_pad"]
        assert all(
            "cards" not in ana.objects[f"hand{s}"] and ana.objects[f"hand{s}"]["n"] == 13
            for s in (1, 2, 3)
        )
        # A known deal instead of the random one, so that an illegal play is always on offer.
        dealt = await deal_known_hands(srv, code)
        await current_deal(ana, dealt)
        ana_leads = (dealt.dealer + 1) % 4 == 0
        refusals: list[dict] = []
        plays = 0
        for _ in range(200):
            await ana.wait_for(lambda: _ready(ana), timeout=30)
            game = ana.game
            assert game is not None
            if game["phase"] in ("deal_over", "game_over"):
                break
            controls = game["controls"]
            bids = [c for c in controls if c.get("group") == "bid"]
            if bids:
                pick = next((c for c in bids if c["label"] == "3"), bids[0])
                await ana.request("game", {"action": pick["action"]})
                continue
            drags = [c for c in controls if c["kind"] == "drag"]
            assert drags, controls
            legal = {c["cards"][0] for c in drags}
            mine = ana.hand_faces()
            illegal = [f for f in mine if f not in legal]
            if plays == 0:
                assert illegal, (mine, legal)  # what mixed_hands() guarantees
            if illegal and len(refusals) < 3:
                try:
                    await ana.op("move", id=mine[illegal[0]], to=drags[0]["dest"])
                except OpFailed as err:
                    refusals.append(err.payload)
                else:
                    raise AssertionError(f"{illegal[0]} was played against the rules")
            face = drags[0]["cards"][0]
            await ana.op("move", id=mine[face], to=drags[0]["dest"])
            plays += 1
        assert plays == 13
        assert refusals, "no illegal play was offered"
        # Ana's first play: leading, a spade is illegal; following, any card off the led suit.
        assert refusals[0]["rule"] == ("spades_not_broken" if ana_leads else "must_follow_suit")
        for err in refusals:
            assert err["code"] == "rules"
            assert err["rule"] in ("must_follow_suit", "spades_not_broken")
            assert "follow" in err["message"] or "spades" in err["message"].lower()
        game = ana.game
        assert game is not None and game["phase"] == "deal_over"
        board = game["scoreboard"]
        assert len(board["rows"]) == 1 and len(board["totals"]) == 4  # points, then bags
        table = await server_table(srv, code)
        state = ENGINE.load(table.game.state)
        assert list(board["totals"]) == [*state.scores, *state.bags]
        assert sum(len(t.cards) for t in state.tricks) == 52
        assert any(line.startswith("Computer 2 ") for line in ana.log)
        assert (
            any("won the trick" in line or "took the trick" in line for line in ana.log)
            or len(state.tricks) == 13
        )
        # The next deal waits for a person: computers never start it.
        assert game["status"].startswith("Deal 1 is over")
        assert any(c["action"]["type"] == "next_deal" for c in game["controls"])
        await ana.close()
    finally:
        await srv.stop()


async def test_spectators_and_waiting_rooms_get_clear_answers(server, make_client):
    code = await spades_room(server.url)
    ana: TableClient = await make_client()
    eve: TableClient = await make_client()
    await ana.join(code, "Ana")
    await eve.join(code, "Eve", seat=None)
    try:
        await ana.request("game", {"action": {"type": "bid", "bid": 3}})
    except OpFailed as err:
        assert err.code == "rules" and err.payload["rule"] == "not_started"
    else:
        raise AssertionError("a bid before the game started was accepted")
    try:
        await ana.request("host", {"action": "start"})
    except OpFailed as err:
        assert err.code == "bad_request" and "at least 4" in err.payload["message"]
    else:
        raise AssertionError("a one-player game of Spades started")
    for seat in (1, 2, 3):
        await ana.request("host", {"action": "bot", "seat": seat})
    await eve.wait_for(lambda: eve.game is not None and not eve.game["waiting"])
    assert eve.game["me"] is None and eve.game["controls"] == []
    assert eve.game["view"]["hand"] is None
    assert not any(
        "face" in o
        for o in eve.objects.values()
        if o["t"] == "card" and (o.get("parent") or "").startswith("hand")
    )


async def test_with_fill_a_computer_plays_for_a_seat_its_person_left(redis_server):
    srv = await start_server(make_config(redis_server.url, bot_delay_seconds=0.0))
    try:
        async with (
            aiohttp.ClientSession() as http,
            http.post(
                f"{srv.url}/api/rooms", json={"game": "spades", "options": {"fill": True}}
            ) as r,
        ):
            code = str((await r.json())["code"])
        ana, ben = await srv.client(), await srv.client()
        await ana.join(code, "Ana")
        await ben.join(code, "Ben")
        assert ana.game is not None and ana.game["fill"] is True
        for seat in (2, 3):
            await ana.request("host", {"action": "bot", "seat": seat})
        await ana.wait_for(lambda: ana.game is not None and not ana.game["waiting"])
        await ben.request("seat", {"seat": None})  # Ben gets up: nobody sits in seat 1 now
        for _ in range(10):
            await ana.wait_for(lambda: _ready(ana) or ana.game["phase"] == "playing", timeout=30)
            g = ana.game
            if g["phase"] != "bidding":
                break
            bids = [c for c in g["controls"] if c.get("group") == "bid"]
            if bids:
                await ana.request("game", {"action": bids[0]["action"]})
        g = ana.game
        assert g["phase"] in ("playing", "trick_done")
        assert all(b is not None for b in g["view"]["bids"])  # seat 1's bid was made for it
        assert any(line.startswith("Seat 2 bid") for line in ana.log), ana.log
    finally:
        await srv.stop()


async def _fill_room(url: str) -> str:
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{url}/api/rooms", json={"game": "spades", "options": {"fill": True}}) as r,
    ):
        assert r.status == 201, await r.text()
        return str((await r.json())["code"])


def _drag(c: TableClient) -> tuple[str, dict[str, Any]]:
    """The face and control of a legal card play offered to ``c`` (its first one)."""
    assert c.game is not None
    drag = next(x for x in c.game["controls"] if x["kind"] == "drag")
    return drag["cards"][0], drag


async def test_with_fill_a_computer_plays_for_a_seat_whose_person_was_removed(redis_server):
    # Presence is settled every second and a lost connection is held for half a second. (A
    # connection counts as live for 3 heartbeats; shorter ones could let a busy machine's
    # stall mark Ana away too, and fill would then play for her.)
    srv = await start_server(
        make_config(
            redis_server.url, bot_delay_seconds=0.0, grace_seconds=0.5, heartbeat_seconds=1.0
        )
    )
    clients: list[TableClient] = []

    async def client() -> TableClient:
        clients.append(await srv.client())
        return clients[-1]

    try:
        code = await _fill_room(srv.url)
        ana, ben = await client(), await client()
        await ana.join(code, "Ana")
        await ben.join(code, "Ben")
        for seat in (2, 3):
            await ana.request("host", {"action": "bot", "seat": seat})
        await ana.wait_for(lambda: ana.game is not None and not ana.game["waiting"])
        # A known deal by seat 3: Ana (seat 0) bids first, so nothing is asked of seat 1 until
        # she has bid, and she leads the first trick.
        dealt = await deal_known_hands(srv, code, dealer=3)
        await current_deal(ana, dealt)
        assert ana.game is not None and ana.game["to_act"] == [0]

        ben_token, ben_player = ben.token, ben.player
        await ben.close()
        await ana.wait_for(
            lambda: [p["name"] for p in ana.players] == ["Ana", "Computer 3", "Computer 4"]
        )
        gone = next(
            i for i, line in enumerate(ana.log) if "Ben left after being away too long" in line
        )

        # Ana bids; a computer bids for the empty seat 1, then the computers in seats 2 and 3.
        await ana.request("game", {"action": {"type": "bid", "bid": 3}})
        await ana.wait_for(lambda: ana.game is not None and ana.game["phase"] == "playing")
        assert all(b is not None for b in ana.game["view"]["bids"])
        assert any(line.startswith("Seat 2 bid") for line in ana.log[gone + 1 :]), ana.log

        # Cy sits down in seat 1: the seat's hand is hers, and the computer stops playing it.
        cy = await client()
        await cy.join(code, "Cy", seat=1)
        assert cy.seat == 1 and cy.game is not None and cy.game["me"] == 1
        await current_deal(cy, dealt)
        assert cy.game["controls"] == []  # Ana leads
        face, drag = _drag(ana)
        await ana.op("move", id=ana.hand_faces()[face], to=drag["dest"])
        await cy.wait_for(lambda: cy.game is not None and cy.game["to_act"] == [1])
        cy_face, cy_drag = _drag(cy)
        await cy.op("move", id=cy.hand_faces()[cy_face], to=cy_drag["dest"])
        state = ENGINE.load((await server_table(srv, code)).game.state)
        first_trick = state.tricks[0].cards if state.tricks else state.trick
        assert list(first_trick[:2]) == [face, cy_face]
        await cy.wait_for(lambda: any(line.startswith("Cy played") for line in cy.log))

        # Ben's page comes back: the room remembers him, but his seat is Cy's now: he watches
        # and is told which seat he had.
        late = await client()
        back = await late.request("join", {"code": code, "token": ben_token})
        assert back["player"] == ben_player and back["seat"] is None and back["was_seat"] == 1
    finally:
        for c in clients:
            await c.close()
        await srv.stop()
