"""The Python client is a package of its own: importing it loads no server or plugin module, so
a bot or a script can use it with only python-socketio installed beside it; it ships typed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_client_imports_no_server_module():
    probe = (
        "import sys, cardtable_client\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('server', 'plugins')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout.strip() == "[]"


def test_the_client_is_typed_and_applies_patches_as_the_server_makes_them():
    from cardtable_client import TableClient, apply_patch
    from server.game.patch import diff

    assert (ROOT / "cardtable_client" / "py.typed").exists()
    assert TableClient.__module__ == "cardtable_client.client"
    old = {"phase": "play", "view": {"hand": [1, 2], "turn": 0}, "gone": 1}
    new = {"phase": "play", "view": {"hand": [2], "turn": 1}, "score": 3}
    assert apply_patch(old, diff(old, new)) == new
