"""docs/protocol.md lists every error code and every rule code the server can send.

The codes are collected from the source with ``ast``: the first argument of every
``CardtableError(...)`` (a constant of :mod:`server.errors` or a string), every ``detail=`` (the
``rule`` of an error), and the first argument of every ``Rejection(...)`` in the engines and
bindings. A code given any other way (a variable, a computed string) fails the test, so no
code can slip past it; the only exception is passing on a code that was already collected
(``err.code``, ``rejection.code``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from server import errors

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "protocol.md").read_text()


def _call_name(node: ast.Call) -> str | None:
    fn = node.func
    if isinstance(fn, ast.Name):
        return fn.id
    if isinstance(fn, ast.Attribute):
        return fn.attr
    return None


def _passed_on(node: ast.expr) -> bool:
    """``x.code``: a code some other collected constructor already made."""
    return isinstance(node, ast.Attribute) and node.attr == "code"


def collect() -> tuple[dict[str, set[str]], dict[str, set[str]], list[str]]:
    """(error code -> files, rule code -> files, constructions the scan can't read)."""
    codes: dict[str, set[str]] = {}
    rules: dict[str, set[str]] = {}
    unread: list[str] = []
    for path in sorted([*(ROOT / "server").rglob("*.py"), *(ROOT / "plugins").rglob("*.py")]):
        where = str(path.relative_to(ROOT))
        for node in ast.walk(ast.parse(path.read_text(), where)):
            if not isinstance(node, ast.Call):
                continue
            name = _call_name(node)
            if name == "CardtableError":
                first = node.args[0] if node.args else None
                if isinstance(first, ast.Name) and isinstance(getattr(errors, first.id, None), str):
                    codes.setdefault(getattr(errors, first.id), set()).add(where)
                elif isinstance(first, ast.Constant) and isinstance(first.value, str):
                    codes.setdefault(first.value, set()).add(where)
                elif first is None or not _passed_on(first):
                    unread.append(f"{where}:{node.lineno}: {ast.unparse(node)[:80]}")
                for kw in node.keywords:
                    if kw.arg != "detail":
                        continue
                    if isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                        rules.setdefault(kw.value.value, set()).add(where)
                    elif not _passed_on(kw.value):
                        unread.append(f"{where}:{node.lineno}: detail={ast.unparse(kw.value)}")
            elif name == "Rejection":
                first = node.args[0] if node.args else None
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    rules.setdefault(first.value, set()).add(where)
                else:
                    unread.append(f"{where}:{node.lineno}: {ast.unparse(node)[:80]}")
    return codes, rules, unread


def _section(title: str) -> str:
    start = DOC.index(title)
    end = DOC.find("\n#", start + len(title))
    return DOC[start : end if end != -1 else len(DOC)]


def _first_column(table_text: str) -> set[str]:
    """The backticked codes in the first column of a Markdown table's rows (not its header)."""
    out: set[str] = set()
    lines = table_text.splitlines()
    for line, below in zip(lines, [*lines[1:], ""], strict=True):
        if line.startswith("| `") and not below.startswith("|---"):
            out.update(re.findall(r"`([a-z_]+)`", line.split("|")[1]))
    return out


def test_the_scan_reads_every_code():
    codes, rules, unread = collect()
    assert not unread, "codes the scan cannot read; give them as constants:\n" + "\n".join(unread)
    # The scan finds what it is for (a broken scan would pass every check below).
    assert {"bad_request", "rules", "rate_limited", "bad_identity"} <= set(codes)
    assert {
        "not_started",
        "top_card_only",
        "one_card",
        "not_a_rummy_move",
        "must_follow_suit",
        "bad_option",
    } <= set(rules)


def test_every_error_code_is_documented():
    codes, _, _ = collect()
    constants = {v for k, v in vars(errors).items() if k.isupper() and isinstance(v, str)}
    assert set(codes) <= constants, (
        f"error codes not declared in server/errors.py: {sorted(set(codes) - constants)}"
    )
    documented = _first_column(_section("## Error codes"))
    social = DOC[DOC.index("New error codes:") :]
    documented |= set(re.findall(r"`([a-z_]+)`", social[: social.find("\n\n")]))
    missing = sorted(constants - documented)
    assert not missing, f"error codes missing from docs/protocol.md: {missing}"


def test_every_rule_code_is_documented_and_every_documented_one_is_sent():
    _, rules, _ = collect()
    documented = _first_column(_section("### Rule codes"))
    missing = {code: sorted(files) for code, files in rules.items() if code not in documented}
    assert not missing, f"rule codes missing from docs/protocol.md, Rule codes: {missing}"
    stale = sorted(documented - set(rules))
    assert not stale, f"docs/protocol.md lists rule codes nothing sends: {stale}"
