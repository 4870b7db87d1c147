"""The deck designer in the browser: a CSV with a header read and mapped with a preview (nothing on
the table until "Add the deck"), a sprite sheet cut into a grid, the table colour showing, and a
two-deck game with a deal button built with clicks, saved and loaded, every card back in its
own deck. Screenshots of
the designer on a desktop and a phone."""

from __future__ import annotations

import json
import re
import struct
import zlib

from tests.browser.conftest import BROWSER_TESTS, dump, enter_room, settled, shot, wait_js

pytestmark = BROWSER_TESTS

COLOURS = [(200, 30, 60), (30, 160, 70), (40, 80, 200), (230, 180, 20), (120, 40, 160), (0, 0, 0)]


def grid_png(rows: int, cols: int, cell: tuple[int, int] = (30, 42)) -> bytes:
    """A PNG of rows x cols cells, each one colour of COLOURS (written here: no libraries)."""
    w, h = cell[0] * cols, cell[1] * rows

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(
        b"\x00" + b"".join(bytes(COLOURS[(y // cell[1]) * cols + x // cell[0]]) for x in range(w))
        for y in range(h)
    )
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


async def blank_room(pages, name: str = "Ana", **kw):
    page = await pages.open(f"/?name={name}", **kw)
    await page.select_option("[data-testid=template]", "blank")
    await page.click("[data-testid=create-room]")
    code = await enter_room(page)
    toggle = page.locator("[data-testid=edit-toggle]")
    if await toggle.text_content() != "Done editing":
        await toggle.click()
    await page.locator("[data-testid=edit-add]").wait_for()
    return page, code


async def open_designer(page) -> None:
    await page.click("[data-testid=edit-add]")
    await page.click("[data-testid=menu-build-custom]")
    await page.locator("[data-testid=deck-builder]").wait_for()


async def stacks(page) -> list[dict]:
    return [o for o in (await dump(page))["server"] if o["t"] == "stack"]


async def tiles(page) -> list[dict]:
    return await page.eval_on_selector_all(
        "[data-testid=deck-tile]",
        "els => els.map(e => ({text: e.dataset.text, count: +e.dataset.count,"
        " image: e.dataset.image}))",
    )


async def test_csv_with_a_header_is_mapped_and_previewed_before_the_table_changes(pages):
    page, _ = await blank_room(pages)
    await open_designer(page)
    await page.fill("[data-testid=deck-name]", "Party")
    csv = "Qty,Colour,Card name\n2,red,Wild\n1,,Skip\n3,blue,Draw two\n"
    await page.set_input_files(
        "[data-testid=deck-csv]",
        files=[{"name": "cards.csv", "mimeType": "text/csv", "buffer": csv.encode()}],
    )
    await page.locator("[data-testid=deck-csv-map]").wait_for()
    assert await page.is_checked("[data-testid=deck-csv-header]")
    assert await page.input_value("[data-testid=deck-map-text]") == "2"
    assert await page.input_value("[data-testid=deck-map-count]") == "0"
    assert await page.input_value("[data-testid=deck-map-color]") == "1"
    await page.locator("[data-testid=deck-count]", has_text="6 cards").wait_for()
    assert await tiles(page) == [
        {"text": "Wild", "count": 2, "image": ""},
        {"text": "Skip", "count": 1, "image": ""},
        {"text": "Draw two", "count": 3, "image": ""},
    ]
    # Mapped otherwise, the preview follows; a bad line is named and the deck cannot be added.
    await page.select_option("[data-testid=deck-map-text]", "1")
    await page.locator("[data-testid=deck-error]", has_text="Line 3").wait_for()
    assert await page.is_disabled("[data-testid=confirm-ok]")
    await page.select_option("[data-testid=deck-map-text]", "2")
    await page.locator("[data-testid=deck-count]", has_text="6 cards").wait_for()
    assert await page.is_enabled("[data-testid=confirm-ok]")
    assert await stacks(page) == []  # nothing on the table yet
    await settled(page)
    await shot(page, "deck-designer-csv")
    await page.click("[data-testid=confirm-ok]")
    await wait_js(page, "s.server.some(o => o.t === 'stack')")
    (deck,) = await stacks(page)
    assert deck["label"] == "Party" and len(deck["cards"]) == 6
    # Face up and spread in a row, each card's text still shows down its left edge.
    for item in ("flip-pile", "layout"):
        await settled(page)
        await page.click(f"[data-testid=stack-count][data-stack='{deck['id']}']", button="right")
        await page.click(f"[data-testid=menu-{item}]")
    await wait_js(page, "s.server.some(o => o.id === arg && o.layout === 'row')", deck["id"])
    await settled(page)
    await shot(page, "text-cards-spread")


async def test_a_sprite_sheet_is_cut_into_cards(pages):
    page, code = await blank_room(pages)
    await open_designer(page)
    await page.fill("[data-testid=deck-name]", "Colours")
    await page.set_input_files(
        "[data-testid=deck-sheet]",
        files=[{"name": "sheet.png", "mimeType": "image/png", "buffer": grid_png(2, 3)}],
    )
    await page.fill("[data-testid=deck-sheet-rows]", "2")
    await page.fill("[data-testid=deck-sheet-cols]", "3")
    await page.fill("[data-testid=deck-sheet-count]", "5")
    await page.click("[data-testid=deck-sheet-cut]")
    await page.locator("[data-testid=deck-count]", has_text="5 cards").wait_for()
    got = await tiles(page)
    assert [t["text"] for t in got] == [f"sheet {i}" for i in range(1, 6)]
    images = [t["image"] for t in got]
    assert len(set(images)) == 5 and all(re.fullmatch(r"[0-9a-f]{64}", i) for i in images)
    # Each cut card is its own 30 x 42 picture of one colour, served by the room.
    sizes = await page.evaluate(
        """async (urls) => Promise.all(urls.map(async (u) => {
            const b = await createImageBitmap(await (await fetch(u)).blob());
            const c = new OffscreenCanvas(b.width, b.height); const g = c.getContext('2d');
            g.drawImage(b, 0, 0); const px = g.getImageData(15, 21, 1, 1).data;
            return [b.width, b.height, px[0], px[1], px[2]]; }))""",
        [f"/api/rooms/{code}/images/{i}" for i in images],
    )
    assert sizes == [[30, 42, *c] for c in COLOURS[:5]]
    await settled(page)
    await shot(page, "deck-designer-sprites")
    await page.click("[data-testid=confirm-ok]")
    await wait_js(page, "s.server.some(o => o.t === 'stack')")
    (deck,) = await stacks(page)
    assert deck["label"] == "Colours" and len(deck["cards"]) == 5


async def test_the_table_colour_shows(pages):
    page, _ = await blank_room(pages)
    await page.click("[data-testid=edit-add]")
    await page.click("[data-testid=menu-build-background]")
    await page.fill("[data-testid=background-color]", "#123456")
    await page.click("[data-testid=confirm-ok]")
    await wait_js(page, "s.server.some(o => o.t === 'board' && o.background === '#123456')")
    await page.wait_for_function(
        "() => getComputedStyle(document.querySelector('.felt')).backgroundColor"
        " === 'rgb(18, 52, 86)'"
    )
    image = await page.evaluate("getComputedStyle(document.querySelector('.felt')).backgroundImage")
    # Whatever is drawn over the colour is see-through: every colour in it has alpha < 1.
    colours = re.findall(r"rgba?\([^)]*\)", image)
    assert colours, image
    assert all(c.startswith("rgba(") and float(c.split(",")[3][:-1]) < 1 for c in colours), image
    await settled(page)
    await shot(page, "table-colour")


async def test_designer_on_a_phone(pages):
    page, _ = await blank_room(pages, "Ana", viewport=(390, 844), is_mobile=True, has_touch=True)
    await open_designer(page)
    await page.fill("[data-testid=deck-name]", "Questions")
    await page.fill(
        "[data-testid=deck-lines]",
        '"Who would win, a bear or a shark?", blue, 2\nName three rivers\nDraw 2, red',
    )
    await page.locator("[data-testid=deck-count]", has_text="4 cards").wait_for()
    await settled(page)
    await shot(page, "deck-designer-phone")
    box = await page.locator("[data-testid=confirm] .modal-box").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390


async def deck_by_clicks(page, name: str, lines: str) -> dict:
    before = {s["id"] for s in await stacks(page)}
    await open_designer(page)
    await page.fill("[data-testid=deck-name]", name)
    await page.fill("[data-testid=deck-lines]", lines)
    await page.click("[data-testid=confirm-ok]")
    await wait_js(
        page, "s.server.some(o => o.t === 'stack' && !arg.includes(o.id))", sorted(before)
    )
    return next(s for s in await stacks(page) if s["id"] not in before)


async def test_two_named_decks_saved_and_loaded_keep_apart(pages):
    """Two named decks and a deal button, made with clicks only (the deck designer, the button
    builder: no JSON typed); saved, loaded into a new room, the button pressed there: every
    card comes from its own deck. The decks look alike (a shared "Red" card, the same back),
    so only where a card was made tells them apart."""
    page, _ = await blank_room(pages)
    await shot(page, "deck-designer-empty")
    animals = await deck_by_clicks(page, "Animals", "Red, , 3\nCat\nDog")
    birds = await deck_by_clicks(page, "Birds", "Red, , 3\nOwl\nHen")
    assert (animals["label"], birds["label"]) == ("Animals", "Birds")
    await deal_button_by_clicks(page)
    # Pressed: 2 from each deck in Ana's hand, so the save has cards in a hand.
    await page.locator("[data-testid=auto-button]", has_text="Deal 2 from each").click()
    await wait_js(page, f"{HAND_HAS} === 4", None)
    async with page.expect_download() as got:
        await page.click("[data-testid=game-file]")
        await page.click("[data-testid=confirm] [data-testid=confirm-ok]")
    with open(await (await got.value).path(), encoding="utf-8") as fh:
        game = json.load(fh)
    home = await pages.open("/?name=Cy")
    await home.set_input_files(
        "[data-testid=upload-game-file]",
        files=[
            {"name": "g.json", "mimeType": "application/json", "buffer": json.dumps(game).encode()}
        ],
    )
    await enter_room(home)
    piles = {p["label"]: p for p in await stacks(home)}
    assert set(piles) == {"Animals", "Birds"}
    assert sorted(len(p["cards"]) for p in piles.values()) == [5, 5]
    # Cy presses the button (Animals' 2 cards come first in his hand, then Birds'), then deals
    # out what is left of each deck from its menu: each deck's cards, all of them, its own.
    await home.locator("[data-testid=auto-button]", has_text="Deal 2 from each").click()
    await wait_js(home, f"{HAND_HAS} === 4", None)
    pressed = await hand_texts(home)
    got: dict[str, list[str]] = {"Animals": pressed[:2], "Birds": pressed[2:]}
    for label in ("Animals", "Birds"):
        before = await hand_texts(home)
        # The page draws a change on its next frame (and glides the cards dealt): until then
        # the pile's last card element may be one already in the hand.
        await settled(home)
        await home.locator(f"[data-parent='{piles[label]['id']}']").last.click(button="right")
        await home.click("[data-testid=menu-deal]")
        await home.fill("[data-testid=prompt-input]", "3")
        await home.click("[data-testid=prompt-ok]")
        await wait_js(home, f"{HAND_HAS} === arg", len(before) + 3)
        got[label] = sorted(got[label] + (await hand_texts(home))[len(before) :])
    assert got == {
        "Animals": ["Cat", "Dog", "Red", "Red", "Red"],
        "Birds": ["Hen", "Owl", "Red", "Red", "Red"],
    }
    assert not await stacks(home) or all(not p["cards"] for p in await stacks(home))


# The number of cards in my hand whose faces the page knows (-1 until they all are).
HAND_HAS = (
    "((h) => h && h.cards.length === h.n && h.cards.every(id => s.objects.some(c => c.id === id"
    " && c.face)) ? h.n : -1)(s.objects.find(o => o.t === 'hand' && o.seat === s.me.seat))"
)


async def deal_button_by_clicks(page) -> None:
    """Build ▾ → Button: two deal steps picked by deck name, 2 cards each, saved."""
    await page.click("[data-testid=edit-add]")
    await page.click("[data-testid=menu-build-button]")
    await page.locator("[data-testid=bb-dialog]").wait_for()
    await page.fill("[data-testid=bb-name]", "Deal 2 from each")
    for i, label in enumerate(("Animals", "Birds")):
        await page.click("[data-testid=bb-add]")
        await page.click("[data-testid=bb-kind-deal]")
        step = page.locator(f"[data-testid=bb-step][data-index='{i}']")
        await step.locator("[data-testid=bb-target]").select_option(label=label)
        await step.locator("[data-testid=bb-n]").fill("2")
    assert await page.locator("[data-testid=bb-dialog] textarea").count() == 0
    await page.click("[data-testid=bb-save]")
    await page.locator("[data-testid=bb-dialog]").wait_for(state="detached")
    await page.locator("[data-testid=auto-button]", has_text="Deal 2 from each").wait_for()


async def hand_texts(page) -> list[str]:
    state = await dump(page)
    seat = state["me"]["seat"]
    hand = next(o for o in state["objects"] if o["t"] == "hand" and o["seat"] == seat)
    faces = {o["id"]: o.get("face") for o in state["objects"] if o["t"] == "card"}
    assert len(hand["cards"]) == hand["n"], hand
    return [json.loads(faces[c])["text"] for c in hand["cards"]]
