"""The locks, requirements-dev.txt and requirements.txt (the Docker image's), hold what
pyproject.toml asks for.

`make setup` installs the lock with ``--require-hashes`` and then the project with ``--no-deps``,
so a requirement added to pyproject.toml but not to the lock would silently go missing from a
fresh clone. Here every requirement of the project, its ``test`` and its ``fast`` extras must be
pinned in the lock (``name==version``, with hashes) at a version its specifier allows. The fix
for a failure is ``make lock``.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
LOCKED = ("test", "fast")  # the extras `make lock` resolves
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")


def requirements(extras: tuple[str, ...] = LOCKED) -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    out = [Requirement(r) for r in project["dependencies"]]
    for extra in extras:
        out += [Requirement(r) for r in project["optional-dependencies"][extra]]
    return out


def pins(text: str) -> dict[str, tuple[Version, int]]:
    """Each pinned package: its version and how many hashes the lock gives for it."""
    out: dict[str, tuple[Version, int]] = {}
    name = ""
    for line in text.splitlines():
        m = PIN.match(line)
        if m:
            name = canonicalize_name(m.group(1))
            out[name] = (Version(m.group(2)), 0)
        elif name and line.strip().startswith("--hash=sha256:"):
            version, hashes = out[name]
            out[name] = (version, hashes + 1)
        elif not line.startswith(" "):
            name = ""
    return out


def test_the_lock_pins_every_requirement_with_hashes() -> None:
    locked = pins((ROOT / "requirements-dev.txt").read_text())
    missing, outside, unhashed = [], [], []
    for req in requirements():
        name = canonicalize_name(req.name)
        if name not in locked:
            missing.append(str(req))
            continue
        version, hashes = locked[name]
        if not req.specifier.contains(version, prereleases=True):
            outside.append(f"{req} (locked {version})")
        if hashes == 0:
            unhashed.append(name)
    assert not (missing or outside or unhashed), (
        f"run `make lock`: not in requirements-dev.txt: {missing}; locked outside pyproject's "
        f"range: {outside}; without hashes: {unhashed}"
    )


def test_the_runtime_lock_pins_the_server_as_the_dev_lock_does() -> None:
    """requirements.txt, what the Docker image installs: the project's dependencies and its
    ``fast`` extra, hashed, at the dev lock's versions, and no test tool."""
    runtime = pins((ROOT / "requirements.txt").read_text())
    dev = pins((ROOT / "requirements-dev.txt").read_text())
    missing = [str(r) for r in requirements(("fast",)) if canonicalize_name(r.name) not in runtime]
    unhashed = [name for name, (_, hashes) in runtime.items() if hashes == 0]
    other = [f"{n}=={v}" for n, (v, _) in runtime.items() if dev.get(n, (None,))[0] != v]
    tools = [canonicalize_name(r.name) for r in requirements(("test",))]
    dev_only = {"pytest", "hypothesis", "mypy", "ruff", "playwright", "vulture"} & set(tools)
    assert not (missing or unhashed or other or dev_only & runtime.keys()), (
        f"run `make lock`: not in requirements.txt: {missing}; without hashes: {unhashed}; "
        f"not the dev lock's version: {other}; test tools: {dev_only & runtime.keys()}"
    )


def test_pins_reads_names_versions_and_hashes() -> None:
    text = (
        "aiohttp==3.14.5 \\\n    --hash=sha256:aa \\\n    --hash=sha256:bb\n    # via x\n"
        "async-timeout==5.0.1 ; python_full_version < '3.11.3' \\\n    --hash=sha256:cc\n"
        "Typing_Extensions==4.16.0\n"
    )
    assert pins(text) == {
        "aiohttp": (Version("3.14.5"), 2),
        "async-timeout": (Version("5.0.1"), 1),
        "typing-extensions": (Version("4.16.0"), 0),
    }
