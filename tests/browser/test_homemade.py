"""Homemade games in the browser: edit mode, the custom deck builder with an uploaded picture,
automation buttons, saving a game file and loading it into a new room, and the library."""

from __future__ import annotations

import json
import struct
import zlib

from tests.browser.conftest import (
    BROWSER_TESTS,
    center,
    drag,
    dump,
    enter_room,
    settled,
    shot,
    wait_js,
)

pytestmark = BROWSER_TESTS


def tiny_png(rgb: tuple[int, int, int] = (200, 30, 60), size: int = 8) -> bytes:
    """A valid size x size PNG of one colour, made here (no files, no libraries)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    row = b"\x00" + bytes(rgb) * size
    ihdr = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(row * size))
        + chunk(b"IEND", b"")
    )


async def build(page, item: str) -> None:
    await page.click("[data-testid=edit-add]")
    await page.click(f"[data-testid=menu-build-{item}]")


async def new_object(page, kind: str, before: set[str]) -> dict:
    await wait_js(
        page, "s.server.some(o => o.t === arg[0] && !arg[1].includes(o.id))", [kind, sorted(before)]
    )
    return next(o for o in (await dump(page))["server"] if o["t"] == kind and o["id"] not in before)


async def ids(page) -> set[str]:
    return {o["id"] for o in (await dump(page))["server"]}


async def test_build_save_load_and_deal(pages):
    a = await pages.open("/?name=Ana")
    await a.select_option("[data-testid=template]", "blank")
    await a.click("[data-testid=create-room]")
    code = await enter_room(a)

    # A fresh table starts in edit mode for its host; switched off, nothing can be added or
    # deleted, and the menus lose their editing entries.
    toggle = a.locator("[data-testid=edit-toggle]")
    await toggle.filter(has_text="Done editing").wait_for()
    await toggle.click()
    await toggle.filter(has_text="Edit table").wait_for()
    assert await a.locator("[data-testid=edit-add]").is_hidden()
    assert await a.locator("[data-testid=add-menu]").is_hidden()
    await toggle.click()
    await a.locator("[data-testid=edit-add]").wait_for()

    # The deck builder: typed lines (a comma inside quotes), one uploaded PNG face, an SVG
    # refused with the server's message.
    before = await ids(a)
    await build(a, "custom")
    await a.fill("[data-testid=deck-lines]", '"Draw 2, then skip", red, 2\nWild, black, 4')
    await a.set_input_files(
        "[data-testid=deck-images]",
        files=[
            {
                "name": "evil.svg",
                "mimeType": "image/svg+xml",
                "buffer": b'<svg xmlns="http://www.w3.org/2000/svg"/>',
            }
        ],
    )
    err = a.locator("[data-testid=deck-error]")
    await err.filter(has_text="evil.svg").wait_for()
    # The browser logs the refused upload (400) as a console error: expected here, once.
    refused = [e for e in pages.errors if "status of 400" in e]
    assert len(refused) == 1
    pages.errors.remove(refused[0])
    await a.set_input_files(
        "[data-testid=deck-images]",
        files=[{"name": "Star.png", "mimeType": "image/png", "buffer": tiny_png()}],
    )
    await a.locator("[data-testid=deck-picture]", has_text="Star").wait_for()
    await a.locator("[data-testid=deck-count]", has_text="7 cards").wait_for()
    await shot(a, "deck-builder")
    await a.click("[data-testid=confirm-ok]")
    deck = await new_object(a, "stack", before)
    assert len(deck["cards"]) == 7

    before = await ids(a)
    await build(a, "zone")
    await a.fill("[data-testid=zone-label]", "Discard")
    await a.select_option("[data-testid=zone-layout]", "row")
    await a.click("[data-testid=confirm-ok]")
    zone = await new_object(a, "stack", before)
    assert (zone["label"], zone["layout"], zone["holder"]) == ("Discard", "row", True)

    before = await ids(a)
    await build(a, "counter")
    await a.fill("[data-testid=counter-label]", "Points")
    await a.fill("[data-testid=counter-step]", "5")
    await a.click("[data-testid=confirm-ok]")
    counter = await new_object(a, "counter", before)
    assert (counter["label"], counter["step"]) == ("Points", 5)

    before = await ids(a)
    await build(a, "deal-button")
    await a.select_option("[data-testid=deal-pile]", deck["id"])
    await a.fill("[data-testid=deal-n]", "3")
    await a.click("[data-testid=confirm-ok]")
    button = await new_object(a, "button", before)
    assert button["label"] == "Deal 3"
    assert button["steps"][-1] == {
        "do": "deal",
        "id": deck["id"],
        "n": 3,
        "to": "hands",
        "up": False,
    }
    await a.locator("[data-testid=auto-button]", has_text="Deal 3").wait_for()

    # Deleting asks first, naming what goes; cancelled, the deck stays.
    await a.locator(f"[data-parent='{deck['id']}']").last.click(button="right")
    await a.click("[data-testid=menu-delete]")
    title = await a.locator("[data-testid=confirm] h2").text_content()
    assert title is not None and "its 7 cards?" in title
    await a.click("[data-testid=confirm-cancel]")
    assert deck["id"] in await ids(a)
    await settled(a)
    await shot(a, "edit-mode")

    # Outside edit mode a stray drag leaves the zone where it is, and the deck's menu has no
    # Delete; in edit mode the same drag moves it.
    zone_el = f"[data-id='{zone['id']}']"
    await toggle.click()
    await toggle.filter(has_text="Edit table").wait_for()
    start = await center(a, zone_el)
    await drag(a, start, (start[0] + 150, start[1] + 200))
    await a.locator("[data-testid=toast]", has_text="Zones stay in place").wait_for()
    assert next(o for o in (await dump(a))["server"] if o["id"] == zone["id"])["y"] == zone["y"]
    await a.locator(f"[data-parent='{deck['id']}']").last.click(button="right")
    await a.locator("[data-testid=menu-shuffle]").wait_for()
    assert await a.locator("[data-testid=menu-delete]").count() == 0
    await a.keyboard.press("Escape")
    await toggle.click()
    await toggle.filter(has_text="Done editing").wait_for()
    await drag(a, start, (start[0] + 150, start[1] + 200))
    await wait_js(
        a, "s.server.some(o => o.id === arg[0] && o.y > arg[1] + 50)", [zone["id"], zone["y"]]
    )

    # Save: the game file has the picture, the deck's cards, the zone, the counter, the button.
    async with a.expect_download() as got:
        await a.click("[data-testid=game-file]")
        await a.click("[data-testid=confirm] [data-testid=confirm-ok]")
    path = await (await got.value).path()
    with open(path, encoding="utf-8") as fh:
        game = json.load(fh)
    assert game["format"] == "cardtable-game" and not game.get("positions")
    # Asked to, the file keeps the current positions too (Ana is the host, alone).
    async with a.expect_download() as got:
        await a.click("[data-testid=game-file]")
        await a.check("[data-testid=confirm] [data-testid=save-positions]")
        await a.click("[data-testid=confirm] [data-testid=confirm-ok]")
    with open(await (await got.value).path(), encoding="utf-8") as fh:
        assert json.load(fh)["positions"] is True
    assert len(game["images"]) == 1
    kinds = sorted(o["kind"] for o in game["objects"])
    assert kinds.count("pile") == 2 and "counter" in kinds and "button" in kinds

    # Load it into a new room from the home page, and deal with the button.
    home = await pages.open("/?name=Cy")
    await home.set_input_files(
        "[data-testid=upload-game-file]",
        files=[
            {
                "name": "game.json",
                "mimeType": "application/json",
                "buffer": json.dumps(game).encode(),
            }
        ],
    )
    code2 = await enter_room(home)
    assert code2 != code
    await home.locator("[data-testid=auto-button]", has_text="Deal 3").click()
    await wait_js(home, "s.objects.some(o => o.t === 'hand' && o.seat === s.me.seat && o.n === 3)")
    state = await dump(home)
    piles = [o for o in state["server"] if o["t"] == "stack"]
    assert sorted(len(p["cards"]) for p in piles) == [0, 4]
    # The picture card is served by the new room (the image came along in the file).
    sha = next(iter(game["images"]))
    status = await home.evaluate(
        "(u) => fetch(u).then(r => r.status)", f"/api/rooms/{code2}/images/{sha}"
    )
    assert status == 200
    await home.locator("[data-where=hand]").first.wait_for()
    await settled(home)
    await shot(home, "homemade-loaded")


async def test_library_poker_table(pages):
    page = await pages.open("/?name=Dee")
    await page.locator("[data-testid=library-game][data-name=poker]").wait_for()
    await shot(page, "home-library")
    await page.click("[data-testid=library-start][data-name=poker]")
    await enter_room(page)
    state = await dump(page)
    board = next(o for o in state["server"] if o["id"] == "board")
    assert board["title"] == "Poker table"
    # A loaded game starts protected from stray clicks: the host is not editing.
    await page.locator("[data-testid=edit-toggle]", has_text="Edit table").wait_for()
    assert await page.locator("[data-testid=add-menu]").is_hidden()
    buttons = page.locator("[data-testid=auto-button]")
    await buttons.filter(has_text="New hand").click()
    await wait_js(page, "s.objects.some(o => o.t === 'hand' && o.seat === s.me.seat && o.n > 0)")
    await settled(page)
    await shot(page, "library-poker")
