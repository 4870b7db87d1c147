"""Connection trouble: offline and back (banner, resync, convergence, a stale move rolled back),
giving up and rejoining, being removed, and the room disappearing."""

from __future__ import annotations

from server.app import HANDLERS_KEY
from server.net.http import ROOMS_KEY
from server.store.redis_store import log_key, room_key
from tests.browser.conftest import (
    BROWSER_TESTS,
    center,
    create_and_join,
    drag,
    dump,
    enter_room,
    settled,
    shot,
    table_point,
    wait_js,
)

pytestmark = BROWSER_TESTS


def table_of(state: dict) -> dict:
    """What both players must agree on: every object but the faces (which differ per seat) and
    what is in hands (a seat gets only its own hand's cards; other hands come as a count)."""
    hands = {o["id"] for o in state["server"] if o["t"] == "hand"}
    out = {}
    for o in state["server"]:
        if o["t"] == "card" and o.get("parent") in hands:
            continue
        o = {k: v for k, v in o.items() if k != "face" and not (o["t"] == "hand" and k == "cards")}
        out[o["id"]] = o
    return out


async def test_offline_then_back_resyncs_and_converges(pages):
    a, b, code = await create_and_join(pages)
    # Ana puts a card on the table; both see it.
    deck = next(o for o in (await dump(a))["objects"] if o["id"] == "deck")
    card = deck["cards"][-1]
    await drag(a, await center(a, f"[data-id='{card}']"), await table_point(a, 300, 250))
    await wait_js(b, "s.server.some(o => o.id === arg && o.parent === null)", card)

    await b.context.set_offline(True)
    banner = b.locator("[data-testid=conn-banner]")
    await banner.wait_for(state="visible", timeout=5000)
    assert "Connection problem - reconnecting, giving up in" in await banner.text_content()
    await wait_js(b, "s.conn === 'down'")

    # Meanwhile Ana moves that card, deals, and flips the moved card.
    await drag(a, await center(a, f"[data-id='{card}']"), await table_point(a, 600, 300))
    await wait_js(a, "s.server.some(o => o.id === arg && o.x > 500)", card)
    await a.click("[data-testid=stack-count][data-stack=deck]", button="right")
    await a.click("[data-testid=menu-deal]")
    await a.fill("[data-testid=prompt-input]", "3")
    await a.click("[data-testid=prompt-ok]")
    await wait_js(a, "s.server.find(o => o.id === 'hand1').n === 3")

    # Ben, still offline, drags the same card somewhere else: shown at once, sent later.
    await drag(b, await center(b, f"[data-id='{card}']"), await table_point(b, 1100, 650))
    await wait_js(b, "s.objects.some(o => o.id === arg && o.x > 1000)", card)
    await shot(b, "offline-ben")

    await b.context.set_offline(False)
    await banner.wait_for(state="hidden", timeout=15000)
    # Ben's stale move is refused (Ana moved it first) and rolled back, with the reason shown.
    toast = b.locator("[data-testid=toast]", has_text="changed that first")
    await toast.first.wait_for(timeout=10000)
    await wait_js(
        b, "s.pending.length === 0 && s.server.find(o => o.id === 'hand1').cards.length === 3"
    )
    await wait_js(b, "s.objects.some(o => o.id === arg && o.x > 500 && o.x < 700)", card)
    # Both pages hold the same table; Ben sees his dealt cards and the log caught up.
    sa, sb = await dump(a), await dump(b)
    assert sa["v"] == sb["v"]
    assert table_of(sa) == table_of(sb)
    assert "Ana dealt 3 cards from Deck to each player" in sb["log"]
    await b.wait_for_selector("[data-testid=card][data-where=hand][data-face] >> nth=2")
    await settled(b)
    await shot(b, "back-online-ben")


async def test_give_up_then_rejoin_keeps_the_seat(pages):
    a, b, code = await create_and_join(pages)
    # Reopen Ben's table with a short give-up time (the token in localStorage keeps his seat).
    await b.goto(f"{pages.server.url}/r/{code}?giveup=2")
    await enter_room(b)
    me = (await dump(b))["me"]
    assert me["seat"] == 1
    await b.context.set_offline(True)
    await b.locator("[data-testid=screen-disconnected]").wait_for(timeout=8000)
    assert await b.locator("[data-testid=screen-disconnected]").get_by_text("Disconnected").count()
    await shot(b, "gave-up-ben")

    await a.click("[data-testid=stack-count][data-stack=deck]", button="right")
    await a.click("[data-testid=menu-shuffle]")
    await b.context.set_offline(False)
    await b.click("[data-testid=rejoin]")
    shuffled = "s.log.some(l => l.startsWith('Ana shuffled Deck (fair shuffle '))"
    await wait_js(b, f"s.conn === 'online' && {shuffled}")
    await b.locator("[data-testid=screen-disconnected]").wait_for(state="detached")
    again = (await dump(b))["me"]
    assert again["player"] == me["player"] and again["seat"] == 1
    assert table_of(await dump(a)) == table_of(await dump(b))


async def test_removed_message(pages, server):
    a, b, code = await create_and_join(pages)
    player = (await dump(b))["me"]["player"]
    handlers = server.app[HANDLERS_KEY]
    sid = next(sid for sid, s in handlers.sessions.items() if s.player_id == player)
    message = "The host removed you from this room."
    await handlers.sio.emit("removed", {"reason": "host", "message": message}, to=sid)
    screen = b.locator("[data-testid=screen-removed]")
    await screen.wait_for()
    assert "host removed you" in await screen.text_content()
    await shot(b, "removed-ben")


async def test_room_gone_while_open_shows_not_found(pages, server):
    a = await pages.open("/?name=Ana")
    await a.click("[data-testid=create-room]")
    code = await enter_room(a)
    store = server.app[ROOMS_KEY].store
    await store.redis.delete(room_key(code), log_key(code))  # the room expired
    await a.context.set_offline(True)
    await wait_js(a, "s.conn === 'down'")
    await a.context.set_offline(False)
    screen = a.locator("[data-testid=screen-not-found]")
    await screen.wait_for(timeout=10000)
    assert "Room not found" in await screen.text_content()
    await shot(a, "room-gone")
