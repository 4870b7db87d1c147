"""The button builder (issue 21 item 1), with clicks only and no JSON: two decks are named from
their menus; a button "Deal 2 from each" gets two deal steps (one target picked from the list of
names, the other by clicking the deck on the table), steps are reordered by dragging and with
the up/down buttons, it is saved and pressed, and every seat's hand holds 2 cards of each deck.
On a phone the dialog fits and "Try it" saves a new button and presses it."""

from __future__ import annotations

import json

from tests.browser.conftest import (
    BROWSER_TESTS,
    axe_violations,
    create_and_join,
    dump,
    enter_room,
    settled,
    shot,
    wait_js,
)

pytestmark = BROWSER_TESTS

PHONE = {"has_touch": True, "is_mobile": True, "device_scale_factor": 2}


async def build(page, item: str) -> None:
    await page.click("[data-testid=edit-add]")
    await page.click(f"[data-testid=menu-build-{item}]")


async def new_stack(page, before: set[str]) -> dict:
    await wait_js(
        page, "s.server.some(o => o.t === 'stack' && !arg.includes(o.id))", sorted(before)
    )
    return next(
        o for o in (await dump(page))["server"] if o["t"] == "stack" and o["id"] not in before
    )


async def ids(page) -> set[str]:
    return {o["id"] for o in (await dump(page))["server"]}


async def name_it(page, stack_id: str, name: str) -> None:
    """Name a pile from its menu (edit mode): right-click its count badge, Name…"""
    await page.click(f"[data-testid=stack-count][data-stack='{stack_id}']", button="right")
    await page.click("[data-testid=menu-name]")
    await page.fill("[data-testid=prompt-input]", name)
    await page.click("[data-testid=prompt-ok]")
    await wait_js(
        page, "s.server.some(o => o.id === arg[0] && o.label === arg[1])", [stack_id, name]
    )


def row(page, i: int):
    return page.locator(f"[data-testid=bb-step][data-index='{i}']")


async def summaries(page) -> list[str]:
    return await page.locator("[data-testid=bb-summary]").all_text_contents()


def is_custom(face: str) -> bool:
    return face.startswith("{")


async def my_hand_faces(page) -> list[str]:
    s = await dump(page)
    seat = s["me"]["seat"]
    objs = {o["id"]: o for o in s["server"]}
    return [objs[c]["face"] for c in objs[f"hand{seat}"]["cards"]]


async def test_a_two_deck_button_built_with_clicks_deals_from_each(pages):
    a, b, _ = await create_and_join(pages, "blank")
    await a.locator("[data-testid=edit-add]").wait_for()

    # Two decks: the standard 52 and a deck of text cards.
    before = await ids(a)
    await build(a, "deck")
    standard = await new_stack(a, before)
    before = await ids(a)
    await build(a, "custom")
    await a.fill("[data-testid=deck-lines]", "Star, red, 12")
    await a.click("[data-testid=confirm-ok]")
    stars = await new_stack(a, before)
    await settled(a)

    # Unnamed, the pickers call them "Pile 1" and "Pile 2", never by id.
    await build(a, "button")
    await a.click("[data-testid=bb-add]")
    await a.click("[data-testid=bb-kind-deal]")
    listed = await row(a, 0).locator("[data-testid=bb-target] option").all_text_contents()
    assert listed == ["Pile 1", "Pile 2"], listed
    await a.click("[data-testid=bb-cancel]")
    await a.locator("[data-testid=bb-dialog]").wait_for(state="detached")

    await name_it(a, standard["id"], "Red deck")
    await name_it(a, stars["id"], "Star deck")

    await build(a, "button")
    dialog = a.locator("[data-testid=bb-dialog]")
    await dialog.wait_for()
    await a.fill("[data-testid=bb-name]", "Deal 2 from each")

    # Step 1 from the list of names.
    await a.click("[data-testid=bb-add]")
    await a.click("[data-testid=bb-kind-deal]")
    targets = row(a, 0).locator("[data-testid=bb-target]")
    assert await targets.locator("option").all_text_contents() == ["Red deck", "Star deck"]
    await targets.select_option(label="Red deck")
    await row(a, 0).locator("[data-testid=bb-n]").fill("2")

    # Step 2 by clicking the deck on the table: the dialog steps aside while picking.
    await a.click("[data-testid=bb-add]")
    await a.click("[data-testid=bb-kind-deal]")
    await row(a, 1).locator("[data-testid=bb-target]").select_option(label="Red deck")
    await row(a, 1).locator("[data-testid=bb-pick-target]").click()
    await a.locator("[data-testid=bb-picking]").wait_for()
    assert await dialog.is_hidden()
    await shot(a, "button-builder-picking")
    await a.click(f"[data-testid=stack-count][data-stack='{stars['id']}']")
    await a.locator("[data-testid=bb-picking]").wait_for(state="detached")
    await dialog.wait_for()
    assert await row(a, 1).locator("[data-testid=bb-target]").input_value() == stars["id"]
    await row(a, 1).locator("[data-testid=bb-n]").fill("2")
    # The pick did not reach the table: the deck did not move or open a menu.
    assert await a.locator("[data-testid=context-menu]").count() == 0

    # A third step, dragged to the top by its handle, then moved with the buttons.
    await a.click("[data-testid=bb-add]")
    await a.click("[data-testid=bb-kind-shuffle]")
    await row(a, 2).locator("[data-testid=bb-target]").select_option(label="Star deck")
    await row(a, 2).locator("[data-testid=bb-handle]").drag_to(row(a, 0))
    want = [
        "Shuffle Star deck",
        "Deal 2 cards from Red deck to every player",
        "Deal 2 cards from Star deck to every player",
    ]
    assert await summaries(a) == want
    await row(a, 0).locator("[data-testid=bb-down]").click()
    assert await summaries(a) == [want[1], want[0], want[2]]
    # Focus follows the moved step (keyboard users stay on it).
    assert await a.evaluate("document.activeElement.closest('[data-index]').dataset.index") == "1"
    await row(a, 1).locator("[data-testid=bb-down]").click()
    assert await summaries(a) == [want[1], want[2], want[0]]
    await row(a, 2).locator("[data-testid=bb-remove]").click()
    assert await summaries(a) == want[1:]

    # No JSON and no ids anywhere in the dialog.
    text = await dialog.inner_text()
    assert "{" not in text and standard["id"] not in text and stars["id"] not in text
    assert await a.locator("textarea").count() == 0
    await settled(a)
    await shot(a, "button-builder")

    before = await ids(a)
    await a.click("[data-testid=bb-save]")
    await dialog.wait_for(state="detached")
    await wait_js(a, "s.server.some(o => o.t === 'button' && !arg.includes(o.id))", sorted(before))
    button = next(o for o in (await dump(a))["server"] if o["t"] == "button")
    assert button["label"] == "Deal 2 from each"
    assert button["steps"] == [
        {"do": "deal", "id": standard["id"], "n": 2, "to": "hands", "up": False},
        {"do": "deal", "id": stars["id"], "n": 2, "to": "hands", "up": False},
    ]

    # Pressed: each seat's hand holds 2 standard cards and 2 star cards.
    await a.locator("[data-testid=auto-button]", has_text="Deal 2 from each").click()
    for page in (a, b):
        await wait_js(page, "s.server.find(o => o.id === 'hand' + s.me.seat).cards.length === 4")
        faces = await my_hand_faces(page)
        assert sum(map(is_custom, faces)) == 2, faces
        assert all(json.loads(f)["text"] == "Star" for f in faces if is_custom(f))
        assert sum(not is_custom(f) for f in faces) == 2, faces
    await wait_js(b, "s.log.some(l => l === \"Ana pressed the button 'Deal 2 from each'\")")

    # The button's menu opens the same builder with the steps as rows, by name.
    await a.locator("[data-testid=auto-button]", has_text="Deal 2 from each").click(button="right")
    await a.click("[data-testid=menu-edit-steps]")
    assert await summaries(a) == want[1:]
    await a.click("[data-testid=bb-cancel]")


async def test_the_builder_on_a_phone_and_try_it(pages):
    page = await pages.open("/?name=Pia", viewport=(390, 844), bypass_csp=True, **PHONE)
    await page.select_option("[data-testid=template]", "blank")
    await page.click("[data-testid=create-room]")
    await enter_room(page)
    await page.locator("[data-testid=edit-add]").wait_for()
    before = await ids(page)
    await build(page, "deck")
    deck = await new_stack(page, before)
    before = await ids(page)
    await build(page, "deck")
    second = await new_stack(page, before)
    await settled(page)

    await build(page, "button")
    await page.fill("[data-testid=bb-name]", "Deal one")
    await page.click("[data-testid=bb-add]")
    await page.click("[data-testid=bb-kind-shuffle]")
    await page.click("[data-testid=bb-add]")
    await page.click("[data-testid=bb-kind-deal]")
    # A wrong number is said in words, and nothing is saved.
    await row(page, 1).locator("[data-testid=bb-n]").fill("0")
    await page.click("[data-testid=bb-try]")
    await page.locator("[data-testid=bb-error]", has_text="Step 2").wait_for()
    assert not any(o["t"] == "button" for o in (await dump(page))["server"])
    await row(page, 1).locator("[data-testid=bb-n]").fill("1")
    # Picking on the table with a finger: the tap picks the deck and does nothing else.
    assert await row(page, 1).locator("[data-testid=bb-target]").input_value() == deck["id"]
    await row(page, 1).locator("[data-testid=bb-pick-target]").tap()
    await page.locator("[data-testid=bb-picking]").wait_for()
    await page.tap(f"[data-testid=stack-count][data-stack='{second['id']}']")
    await page.locator("[data-testid=bb-dialog]").wait_for()
    assert await row(page, 1).locator("[data-testid=bb-target]").input_value() == second["id"]
    assert await page.locator("[data-testid=context-menu]").count() == 0
    # Nothing in the dialog is unlabelled or unreadable (axe-core, serious and critical).
    in_dialog = [
        (v["id"], sel)
        for v in await axe_violations(page)
        for sel, _ in v["nodes"]
        if await page.evaluate(
            "(sel) => !!document.querySelector(sel)?.closest('[data-testid=bb-dialog]')", sel
        )
    ]
    assert not in_dialog, in_dialog
    # The dialog fits the phone's width; its buttons are big enough for a finger.
    box = await page.locator(".bb-box").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    up = await row(page, 1).locator("[data-testid=bb-up]").bounding_box()
    assert up is not None and up["height"] >= 44
    await settled(page)
    await shot(page, "button-builder-phone")

    # Try it: the new button is saved and pressed; the dialog stays open to go on editing.
    await page.click("[data-testid=bb-try]")
    await wait_js(page, "s.server.find(o => o.id === 'hand' + s.me.seat).cards.length === 1")
    buttons = [o for o in (await dump(page))["server"] if o["t"] == "button"]
    assert [(b["label"], b["steps"]) for b in buttons] == [
        (
            "Deal one",
            [
                {"do": "shuffle", "id": deck["id"]},
                {"do": "deal", "id": second["id"], "n": 1, "to": "hands", "up": False},
            ],
        )
    ]
    await page.locator("[data-testid=bb-save]", has_text="Save").click()
    await page.locator("[data-testid=bb-dialog]").wait_for(state="detached")
    # Saved again, not a second button.
    await wait_js(page, "s.pending.length === 0")
    assert sum(o["t"] == "button" for o in (await dump(page))["server"]) == 1
