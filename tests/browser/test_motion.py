"""Cards move like cards (issue 20 item 2): in Spades against three computers, a card a computer
plays starts at that computer's place (its fan of backs) and glides to the trick in front of it;
the finished trick slides towards its winner's pile and fades. With
``prefers-reduced-motion: reduce`` no card animates and objects jump (no transition).

The page's ``Element.prototype.animate`` is wrapped by an init script that records every card
animation as it starts (its first keyframe and, at that moment, where each fan comes to rest:
a fan's own transition is finished first), so the test reads what the page did rather than
racing the animation's frames.
"""

from __future__ import annotations

import re
from typing import Any

from tests.browser.conftest import BROWSER_TESTS, dump, settled, shot
from tests.browser.test_seats import DESKTOP, rule_room, until_my_turn

pytestmark = BROWSER_TESTS

RECORD = """(() => {
  window.__motions = [];
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (frames, opts) {
    const a = animate.call(this, frames, opts);
    if (this.classList && this.classList.contains('card')) {
      const stage = document.querySelector('.stage') || document.body;
      const st = stage.getBoundingClientRect();
      const fans = {};
      for (const f of document.querySelectorAll('.other-hand')) {
        const fan = f.querySelector('.fan-cards');
        // The fan's own transition (it turns and moves into place) may still be running on a
        // loaded machine: the card starts from where the fan comes to rest, so measure that.
        for (const t of fan.getAnimations()) t.finish();
        const r = fan.getBoundingClientRect();
        fans[f.dataset.player] = [r.left + r.width / 2 - st.left, r.top + r.height / 2 - st.top];
      }
      window.__motions.push({id: opts && opts.id, parent: this.dataset.parent || null,
        face: this.dataset.face || null, first: String(frames[0].transform || ''),
        last: String(frames[frames.length - 1].transform || ''),
        opacity: frames[frames.length - 1].opacity ?? null,
        w: parseFloat(this.style.width), h: parseFloat(this.style.height),
        running: this.getAnimations().length, fans});
    }
    return a;
  };
})();"""

TRANSLATE = re.compile(r"translate\(([-\d.e]+)px, ([-\d.e]+)px\)")


def centre(m: dict, which: str = "first") -> tuple[float, float]:
    """The centre of the card at an animation's first (or last) keyframe: the element turns and
    scales about its centre, so the translate and the element's own size say where it is."""
    got = TRANSLATE.search(m[which])
    assert got, m
    return float(got[1]) + m["w"] / 2, float(got[2]) + m["h"] / 2


async def motions(page: Any) -> list[dict]:
    return list(await page.evaluate("window.__motions"))


def after_first_trick(g: dict) -> bool:
    return sum((g["view"] or {}).get("tricks_taken") or [0]) >= 1


async def test_a_computer_s_card_glides_from_its_place_and_the_trick_slides_to_its_winner(pages):
    page = await rule_room(pages, "spades", 4, DESKTOP)
    await page.add_init_script(RECORD)
    await page.reload()
    await page.wait_for_function("() => window.__cardtable && window.__cardtable.state.game")
    g = await until_my_turn(page, after_first_trick)
    got = await motions(page)
    me = g["me"]
    arrivals = [m for m in got if m["id"] == "arrive" and (m["parent"] or "").startswith("trick")]
    theirs = [m for m in arrivals if m["parent"] != f"trick{me}"]
    assert len(theirs) >= 3, got
    for m in theirs:
        player = m["parent"][len("trick") :]
        fx, fy = m["fans"][player]
        cx, cy = centre(m)
        assert abs(cx - fx) < 2 and abs(cy - fy) < 2, (m, "starts at the player's fan")
        lx, ly = centre(m, "last")
        assert abs(lx - fx) > 50 or abs(ly - fy) > 50, "and ends in front of them, on the table"
        assert m["running"] >= 1
    # The finished trick: its four cards slide towards the winner's pile and fade out.
    leaving = [m for m in got if m["id"] == "leave"]
    assert len(leaving) >= 4, got
    first = leaving[:4]
    assert all(m["opacity"] == 0 for m in first)
    ends = {centre(m, "last") for m in first}
    assert len({(round(x), round(y)) for x, y in ends}) == 1, "all four go to one place"
    winner = g["view"]["played"][0]["winner"]
    won = await page.evaluate(
        """p => { const el = document.querySelector(`[data-id=won${p}]`);
        const st = document.querySelector('.stage').getBoundingClientRect();
        const r = el.getBoundingClientRect();
        return [r.left + r.width / 2 - st.left, r.top + r.height / 2 - st.top]; }""",
        winner,
    )
    ((ex, ey),) = ends
    assert abs(ex - won[0]) < 3 and abs(ey - won[1]) < 3, (ends, won, "the winner's pile")
    await settled(page)
    assert await page.locator("[data-testid=card-leaving]").count() == 0, "gone once faded"

    # A picture of a card on its way: play ours, catch the glide, hold it half way.
    await page.evaluate(
        "a => window.__cardtable.room.conn.request('game', {action: a})",
        next(a for a in g["legal"] if a["type"] == "play"),
    )
    await page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=card]')]"
        ".some((el) => el.getAnimations().some((a) => a.id === 'arrive'))"
    )
    await page.evaluate(
        "() => document.getAnimations().forEach((a) => { a.pause(); a.currentTime = 180; })"
    )
    await shot(page, "motion-glide-desktop")
    # The trick's count waits for the card: hidden while it glides (it said 1 before it landed).
    badge = await page.evaluate(
        """me => getComputedStyle(document.querySelector(
        `[data-testid=stack-count][data-stack=trick${me}]`)).opacity""",
        me,
    )
    assert badge == "0", badge
    await page.evaluate("() => document.getAnimations().forEach((a) => a.play())")
    await settled(page)


async def test_reduced_motion_moves_nothing(pages):
    page = await rule_room(pages, "spades", 4, DESKTOP)
    code = (await dump(page))["code"]
    calm = await pages.browser.new_context(
        viewport={"width": DESKTOP[0], "height": DESKTOP[1]}, reduced_motion="reduce"
    )
    pages.contexts.append(calm)
    await calm.add_init_script(RECORD)
    watcher = await calm.new_page()
    await watcher.goto(f"{pages.server.url}/r/{code}?name=Wes")
    await watcher.wait_for_function("() => window.__cardtable && window.__cardtable.state.game")
    # Pia plays on; the calm page watches a whole trick played and gathered.
    await until_my_turn(page, after_first_trick)
    await watcher.wait_for_function(
        "() => (window.__cardtable.state.game.view.tricks_taken || []).reduce((a, b) => a + b, 0)"
        " >= 1"
    )
    await settled(watcher)
    assert await motions(watcher) == []
    transition = await watcher.evaluate(
        "getComputedStyle(document.querySelector('[data-testid=card]')).transitionDuration"
    )
    assert set(transition.replace(" ", "").split(",")) == {"0s"}, transition
