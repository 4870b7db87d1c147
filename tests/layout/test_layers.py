"""The server's layers hold: no import cycles and no upward imports, lazy and type-only imports
included. A lower layer never imports a higher one, so a change finds its place from the folder
names and the data flows one way (client intent -> net -> room -> game/table -> store)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.layout.imports import cycles, import_graph

# Lowest first. A module may import its own layer and the layers before it, never one after.
LAYERS: list[tuple[str, ...]] = [
    ("plugins",),  # pure rule engines: state in, action in; nothing of the server
    ("server.errors",),  # the one error type and its codes
    ("server.metrics", "server.logs"),  # Prometheus counters; log format and context
    ("server.table",),  # the pure table model: objects, operations, visibility
    ("server.config",),  # settings, with the table's limits
    ("server.game",),  # rule games on the table: engines linked to the model, no I/O
    ("server.store",),  # Redis: rooms, op logs, rate-limit windows
    ("server.room",),  # the reducer, players, host, presence, the room service and feed
    ("server.homemade",),  # game files, images, the library, rooms made from files
    ("server.social",),  # identities, lobby, challenges, chat, relations
    ("server.net",),  # HTTP routes, Socket.IO handlers, the hardened transport
    ("server",),  # the app factory, the command line
]


def layer_of(module: str) -> int:
    """The index of the most specific layer naming ``module`` (or a package holding it)."""
    best: tuple[int, int] | None = None
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            inside = module == prefix or module.startswith(prefix + ".")
            if inside and (best is None or len(prefix) > best[1]):
                best = (index, len(prefix))
    if best is None:
        raise LookupError(f"{module} is in no layer: add it to LAYERS")
    return best[0]


def upward(graph: dict[str, set[str]]) -> list[str]:
    return sorted(
        f"{module} -> {dep}"
        for module, deps in graph.items()
        for dep in deps
        if layer_of(dep) > layer_of(module)
    )


def test_no_import_cycles_in_server_or_plugins() -> None:
    assert cycles(import_graph(packages=True)) == []


def test_no_module_imports_a_higher_layer() -> None:
    assert upward(import_graph()) == []


def test_every_module_is_in_a_layer() -> None:
    for module in import_graph():
        layer_of(module)


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_checks_catch_a_lazy_cycle_and_a_type_only_upward_import(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "server/__init__.py": "",
            "server/table/__init__.py": "",
            "server/table/a.py": "def f():\n    from server.table import b\n",
            "server/table/b.py": "from server.table.a import f\n",
            "server/room/__init__.py": "",
            "server/room/r.py": "X = 1\n",
            "server/errors.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                "    from server.room.r import X\n"
            ),
            "plugins/__init__.py": "",
        },
    )
    graph = import_graph(tmp_path)
    assert cycles(graph) == [["server.table.a", "server.table.b"]]
    assert upward(graph) == ["server.errors -> server.room.r"]


def test_a_package_that_imports_a_module_importing_from_it_is_a_cycle(tmp_path: Path) -> None:
    """``plugins/spades/__init__.py`` imported ``bot_hard``, which took ``bot`` with ``from
    plugins.spades import bot``: the package's ``__init__`` runs for that import, a cycle."""
    _write(
        tmp_path,
        {
            "server/__init__.py": "",
            "plugins/__init__.py": "",
            "plugins/game/__init__.py": "from plugins.game.hard import X\n",
            "plugins/game/bot.py": "Y = 1\n",
            "plugins/game/hard.py": "from plugins.game import bot\nX = bot.Y\n",
        },
    )
    assert cycles(import_graph(tmp_path)) == []  # submodules only: no cycle by that reading
    assert cycles(import_graph(tmp_path, packages=True)) == [["plugins.game", "plugins.game.hard"]]


def test_a_module_outside_every_layer_is_reported() -> None:
    with pytest.raises(LookupError):
        layer_of("elsewhere.module")
