"""The game view sent as a patch (server/game/patch.py): over self-play of every registered game
through the reducer and ``build_deltas`` (the room service's steps, no sockets), each view's
game view followed delta by delta - whole views and patches applied in order - is always the
view the server would build now; patches are only made against views this process sent at the
previous version; and the page's applier (web/src/core/gamepatch.ts) agrees with the Python one on
the patches the games emit.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import msgspec
import pytest

from cardtable_client import apply_patch
from plugins.registry import GAMES
from server.game import rules as games
from server.game import session as game_session
from server.game.patch import diff
from server.room.reducer import Auto, Env, GameCommand, reduce
from server.room.service import build_deltas, view_key
from server.table.objects import decode_table, encode_table
from tests.server.game_counting import seated_room, slot

WEB = Path(__file__).resolve().parents[2] / "web"


def _plain(x: Any) -> Any:
    return msgspec.json.decode(msgspec.json.encode(x))


def _self_play(
    name: str, players: int, seed: int, commits: int, cases: list[dict[str, Any]] | None = None
) -> dict[str, int]:
    """Play ``commits`` commits of ``name`` (a person in seat 0, computers elsewhere, a
    spectator), following each view's game view through its deltas; every few commits the room
    is decoded afresh (another process committed) or a built commit is dropped (it lost the
    version race). Returns how many whole views and patches were sent."""
    rng = random.Random(seed)
    table, env = seated_room(name, players, rng)
    held: dict[str, Any] = {view_key(s): games.game_view(table, s) for s in (None, 0)}
    sent = {"whole": 0, "patch": 0, "same": 0}
    for step in range(commits):
        view = games.game_view(table, 0)
        assert view is not None
        if view["phase"] == "game_over":
            break
        now = max(env.now, float(slot(table, "deadline") or 0.0), float(table.bot_due or 0.0))
        env = Env(now=now + 0.01, rng=rng, bot_delay=0.0)
        if step % 17 == 16:  # another process's commit: the room comes back from the store
            table = decode_table(encode_table(table))
        action = GameCommand("ana", rng.choice(view["legal"])) if view["legal"] else Auto()
        if step % 23 == 22:  # an attempt on a copy that loses the version race: built, not sent
            lost = decode_table(encode_table(table))
            game_session.adopt(lost, game_session.kept(table))
            lost_change = reduce(lost, action, env)
            if lost_change is not None:
                build_deltas(lost, lost_change, "ana")
        change = reduce(table, action, env)
        if change is None:
            continue
        deltas = build_deltas(table, change, "ana")
        game_session.remember(table)
        for seat in (None, 0):
            key = view_key(seat)
            d = deltas.get(key) or deltas.get("all")
            assert d is not None
            if "game" in d:
                held[key] = d["game"]
                sent["whole"] += 1
            elif "game_patch" in d:
                before = _plain(held[key])
                held[key] = apply_patch(held[key], d["game_patch"])
                sent["patch"] += 1
                if cases is not None and len(cases) < 400:
                    cases.append(
                        {
                            "base": before,
                            "patch": _plain(d["game_patch"]),
                            "expected": _plain(held[key]),
                        }
                    )
            elif change.game_changed:
                sent["same"] += 1
            assert _plain(held[key]) == _plain(games.game_view(table, seat)), (name, step, key)
    return sent


GAME_CASES = [(g.info.name, g.info.max_players) for g in GAMES.values()]


@pytest.mark.parametrize(("name", "players"), GAME_CASES, ids=[n for n, _ in GAME_CASES])
def test_patches_applied_in_order_give_the_new_view(name: str, players: int) -> None:
    for seed in range(3):
        sent = _self_play(name, players, seed, 150)
        assert sent["patch"] > sent["whole"], sent  # most commits send a patch


def test_no_patch_without_the_previous_versions_views() -> None:
    rng = random.Random(5)
    table, env = seated_room("spades", 4, rng)
    change = reduce(table, Auto(), env)
    assert change is not None
    first = build_deltas(table, change, "server")
    assert all("game" in d for d in first.values())  # nothing was sent before: whole views
    game_session.remember(table)
    env = Env(now=env.now + 5, rng=rng, bot_delay=0.0)
    view = games.game_view(table, 0)
    assert view is not None
    action = GameCommand("ana", view["legal"][0]) if view["legal"] else Auto()
    change = reduce(table, action, env)
    assert change is not None
    fresh = decode_table(encode_table(table))  # the same commit, in a process that holds
    assert all(
        "game" in d and "game_patch" not in d  # nothing of the room's last commit
        for d in build_deltas(fresh, change, "ana").values()
    )
    patched = build_deltas(table, change, "ana")  # this process sent the previous version
    assert any("game_patch" in d for d in patched.values())


def test_patch_shapes() -> None:
    old = {"a": 1, "b": [1], "gone": 0, "view": {"x": 1, "y": 2}}
    new = {"a": 1, "b": [2], "c": None, "view": {"x": 1, "z": 3}}
    patch = diff(old, new)
    assert patch == {
        "set": {"b": [2], "c": None},
        "del": ["gone"],
        "view": {"set": {"z": 3}, "del": ["y"]},
    }
    assert apply_patch(old, patch) == new
    assert old["view"] == {"x": 1, "y": 2}  # the base is left as it was
    assert diff(new, new) == {}
    swap = {"a": 1, "view": None}
    assert apply_patch(new, diff(new, swap)) == swap
    assert apply_patch(swap, diff(swap, new)) == new


def test_the_page_applies_the_patches_the_games_emit(tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None or not (WEB / "node_modules" / "esbuild").exists():
        pytest.skip("node and the web client's dev dependencies are needed")
    cases: list[dict[str, Any]] = []
    for name, players in GAME_CASES:
        before = len(cases)
        _self_play(name, players, 11, 80, cases)
        del cases[before + 100 :]
    assert len({c["expected"].get("name") for c in cases}) == len(GAME_CASES)
    path = tmp_path / "game_patch_cases.json"
    path.write_text(json.dumps(cases))
    run = subprocess.run(
        [node, "test/run.mjs", "--test-name-pattern=game patch"],
        cwd=WEB,
        env={**os.environ, "CARDTABLE_GAME_PATCH_CASES": str(path)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"{len(cases)} cases emitted by the server" in run.stdout, run.stdout


async def test_over_the_wire_the_patched_view_is_the_snapshots(
    server: Any, make_client: Any
) -> None:
    """Two people play Gin through a real server: their deltas carry patches, and the game view
    each client built from them is what a new connection's snapshot shows for that seat."""
    from tests.server.helpers import server_table
    from tests.server.test_gin_room import gin_room

    code = await gin_room(server)
    a, b = await make_client(), await make_client()
    await a.join(code, "Ana")
    await b.join(code, "Ben")
    rng = random.Random(3)
    for _ in range(12):
        c = next((c for c in (a, b) if c.game and c.game["legal"]), None)
        assert c is not None
        await c.request("game", {"action": rng.choice(c.game["legal"])})
        table = await server_table(server, code)
        await a.wait_version(table.version)
        await b.wait_version(table.version)
    assert any(name == "delta" and "game_patch" in d for name, d in a.received)
    for c in (a, b):
        again = await make_client()
        await again.join(code, "again", token=c.token)  # the same player: its seat's view
        assert again.game == c.game
