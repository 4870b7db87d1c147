"""Chips, counters and dice; text shown as text; the room-not-found page; a phone with touch."""

from __future__ import annotations

from server.room.codes import pretty
from tests.browser.conftest import (
    BROWSER_TESTS,
    create_and_join,
    dump,
    enter_room,
    settled,
    shot,
    wait_js,
)

pytestmark = BROWSER_TESTS


async def add(page, what: str) -> str:
    """Add an object through the "+ Add" menu; returns its id once the server has it."""
    before = {o["id"] for o in (await dump(page))["server"]}
    await page.click("[data-testid=add-menu]")
    await page.click(f"[data-testid=menu-add-{what}]")
    kind = {"chips": "chips", "counter": "counter", "die": "die", "label": "label"}[what]
    await wait_js(
        page, "s.server.some(o => o.t === arg[0] && !arg[1].includes(o.id))", [kind, sorted(before)]
    )
    return next(
        o["id"] for o in (await dump(page))["server"] if o["t"] == kind and o["id"] not in before
    )


async def test_chips_counters_and_dice(pages):
    a, b, code = await create_and_join(pages, template="blank")
    chips = await add(a, "chips")
    counter = await add(a, "counter")
    die = await add(a, "die")
    await b.wait_for_selector(f"[data-id='{die}']")

    chip_el = f"[data-id='{chips}']"
    await a.click(f"{chip_el} [data-testid=chips-plus]")
    await a.click(f"{chip_el} [data-testid=chips-plus]")
    await a.click(f"{chip_el} [data-testid=chips-minus]")
    await b.wait_for_selector(f"{chip_el} [data-testid=chips-count]:text-is('11')")

    counter_el = f"[data-id='{counter}']"
    for _ in range(3):
        await b.click(f"{counter_el} [data-testid=counter-plus]")
    await b.click(f"{counter_el} [data-testid=counter-minus]")
    await a.wait_for_selector(f"{counter_el} [data-testid=counter-value]:text-is('2')")
    await wait_js(a, "s.log.includes('Ben set Score to 2')")

    await a.click(f"[data-id='{die}']")
    await wait_js(b, "s.log.some(l => l.startsWith('Ana rolled a '))")
    value = next(o["value"] for o in (await dump(b))["server"] if o["id"] == die)
    assert 1 <= value <= 6
    await b.wait_for_selector(f"[data-id='{die}'] [data-testid=die-value][data-value='{value}']")

    # A context-menu action on the counter: set a value.
    await a.click(f"{counter_el} [data-testid=counter-value]", button="right")
    await a.click("[data-testid=menu-counter-set]")
    await a.fill("[data-testid=prompt-input]", "-7")
    await a.click("[data-testid=prompt-ok]")
    await b.wait_for_selector(f"{counter_el} [data-testid=counter-value]:text-is('-7')")
    await settled(b)
    await shot(b, "widgets-ben")


async def test_user_text_is_rendered_as_text(pages):
    nasty = "<img src=x onerror=alert(1)>"
    dialogs: list[str] = []
    a = await pages.open("/?name=Ana")
    a.on("dialog", lambda d: dialogs.append(d.message))
    await a.select_option("[data-testid=template]", "blank")
    await a.click("[data-testid=create-room]")
    code = await enter_room(a)
    b = await pages.open(None)
    b.on("dialog", lambda d: dialogs.append(d.message))
    from urllib.parse import quote

    await b.goto(f"{pages.server.url}/r/{code}?name={quote(nasty)}")
    await enter_room(b)
    name = a.locator("[data-testid=seat-1] [data-testid=player-name]")
    await name.wait_for()
    assert await name.text_content() == nasty
    # Only the host edits until she lets everyone: then Ben may add things too.
    assert await b.locator("[data-testid=add-menu]").is_hidden()
    await a.click("[data-testid=host-edit-all]")
    await a.locator("[data-testid=edit-state]", has_text="Everyone edits").wait_for()
    await b.locator("[data-testid=add-menu]").wait_for()
    # A label and a homemade card with markup in them: shown literally too.
    await b.click("[data-testid=add-menu]")
    await b.click("[data-testid=menu-add-label]")
    await b.fill("[data-testid=prompt-input]", "<b>bold</b> & <script>alert(2)</script>")
    await b.click("[data-testid=prompt-ok]")
    label = a.locator("[data-testid=label] .label-text")
    await label.wait_for()
    assert await label.text_content() == "<b>bold</b> & <script>alert(2)</script>"
    await b.click("[data-testid=add-menu]")
    await b.click("[data-testid=menu-add-custom]")
    await b.fill("[data-testid=prompt-input]", "<svg onload=alert(3)>")
    await b.click("[data-testid=prompt-ok]")
    await a.wait_for_selector('[data-testid=card][data-face="<svg onload=alert(3)>"]')
    for page in (a, b):
        assert await page.locator("img[src=x]").count() == 0
        assert await page.locator("#app b, #app script, #app svg").count() == 0
    await wait_js(a, "s.log.some(l => l.includes(arg))", nasty)
    assert await a.locator("[data-testid=log-line]", has_text=nasty).count() >= 1
    await settled(a)
    await shot(a, "text-as-text")
    assert dialogs == []


async def test_room_not_found_and_recent_rooms(pages):
    page = await pages.open("/r/ZZZZ-ZZZZ")
    assert await page.locator("h1").text_content() == "Room not found"
    # A room you visited is listed on the home page.
    await page.goto(f"{pages.server.url}/?name=Ana")
    await page.click("[data-testid=create-room]")
    code = await enter_room(page)
    await page.goto(f"{pages.server.url}/")
    await page.locator("[data-testid=recent-room]", has_text=pretty(code)).wait_for()
    # From the home page: the code is checked before leaving the page.
    home = await pages.open("/?name=Ana")
    await home.fill("[data-testid=join-code]", "zzzz zzzz")
    await home.click("[data-testid=join-room]")
    err = home.locator("[data-testid=join-error]")
    await err.filter(has_text="Room not found").wait_for()
    await home.fill("[data-testid=join-code]", "abc")
    await home.click("[data-testid=join-room]")
    await err.filter(has_text="8 letters").wait_for()
    await shot(home, "home-not-found")


async def test_phone_touch(pages):
    a, b, code = await create_and_join(pages)
    phone = await pages.open(
        f"/r/{code}?name=Cy",
        viewport=(390, 844),
        has_touch=True,
        is_mobile=True,
        device_scale_factor=2,
    )
    await enter_room(phone)
    await wait_js(phone, "s.me.seat === 2")
    deck = next(o for o in (await dump(phone))["objects"] if o["id"] == "deck")
    top = deck["cards"][-1]
    box = await phone.locator(f"[data-id='{top}']").bounding_box()
    start = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    hand = await phone.locator("[data-testid=my-hand]").bounding_box()
    end = (hand["x"] + hand["width"] / 2, hand["y"] + hand["height"] / 2)
    # A finger drags the top card into the hand (touch events become pointer events).
    cdp = await phone.context.new_cdp_session(phone)

    async def touch(kind: str, x: float, y: float) -> None:
        points = [] if kind == "touchEnd" else [{"x": x, "y": y}]
        await cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    await touch("touchStart", *start)
    for i in range(1, 11):
        await touch(
            "touchMove",
            start[0] + (end[0] - start[0]) * i / 10,
            start[1] + (end[1] - start[1]) * i / 10,
        )
    await touch("touchEnd", *end)
    await wait_js(phone, "s.server.find(o => o.id === 'hand2').cards.includes(arg)", top)
    await a.wait_for_selector("[data-testid=hand-count-2]:text('1')")
    await phone.wait_for_selector(f"[data-id='{top}'][data-where=hand][data-face]")
    # Double tap flips the deck's new top card.
    nxt = next(o for o in (await dump(phone))["objects"] if o["id"] == "deck")["cards"][-1]
    box = await phone.locator(f"[data-id='{nxt}']").bounding_box()
    await phone.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    await phone.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    await a.wait_for_selector(f"[data-id='{nxt}'][data-face]")
    await settled(phone)
    await shot(phone, "phone-table")

    # Two fingers spread apart zoom the table in around them.
    width0 = (await phone.locator(f"[data-id='{nxt}']").bounding_box())["width"]
    mid = (195, 420)
    await cdp.send(
        "Input.dispatchTouchEvent",
        {
            "type": "touchStart",
            "touchPoints": [
                {"x": mid[0] - 20, "y": mid[1], "id": 1},
                {"x": mid[0] + 20, "y": mid[1], "id": 2},
            ],
        },
    )
    for i in range(1, 9):
        await cdp.send(
            "Input.dispatchTouchEvent",
            {
                "type": "touchMove",
                "touchPoints": [
                    {"x": mid[0] - 20 - 12 * i, "y": mid[1], "id": 1},
                    {"x": mid[0] + 20 + 12 * i, "y": mid[1], "id": 2},
                ],
            },
        )
    await cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    await phone.wait_for_function("() => window.__cardtable.room.r.geom.vp.zoom > 2")
    await settled(phone)
    width1 = (await phone.locator(f"[data-id='{nxt}']").bounding_box())["width"]
    assert width1 > 2 * width0
    await shot(phone, "phone-zoomed")
    await phone.click("[data-testid=zoom-fit]")
    await phone.wait_for_function("() => window.__cardtable.room.r.geom.vp.zoom === 1")
    # The players panel opens from the top bar on a narrow screen.
    await phone.click("[data-testid=panel-toggle]")
    await phone.wait_for_function(
        "() => document.querySelector('.room').classList.contains('panel-open')"
    )
    await settled(phone)
    await shot(phone, "phone-panel")
    name = phone.locator("[data-testid=seat-2] [data-testid=player-name]")
    assert await name.text_content() == "Cy"
