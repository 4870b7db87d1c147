"""Third-party games join through the ``cardtable.games`` entry-point group: a distribution
found on sys.path (here a tiny one written to a temporary directory, its ``*.dist-info`` read by
importlib.metadata as pip would have installed it) adds its game after the built-in four, which
are found with or without their own entry points installed."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from plugins.game import Game
from plugins.registry import GROUP, MODULES, GameNotAvailable, discover

ROOT = Path(__file__).resolve().parents[2]
BUILT_IN = ["gin_rummy", "spades", "rummy", "pennies"]


def fake_distribution(where: Path, name: str, entry_points: dict[str, str], code: str) -> None:
    """An installed distribution ``name`` with module ``name`` and these entry points."""
    (where / name).mkdir()
    (where / name / "__init__.py").write_text(code)
    info = where / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    lines = "".join(f"{k} = {v}\n" for k, v in entry_points.items())
    (info / "entry_points.txt").write_text(f"[{GROUP}]\n{lines}")


RACE_GAME = (
    "from plugins.game import Game\n"
    "from tests.plugins.test_simulate import RACE, _RaceBinding, grabber\n"
    "GAME = Game(engine=RACE, binding=_RaceBinding(), bot=grabber)\n"
)


def test_a_third_party_game_appears_after_the_built_ins(tmp_path, monkeypatch):
    assert "race" not in discover()
    fake_distribution(tmp_path, "cardtable_race", {"race": "cardtable_race:GAME"}, RACE_GAME)
    monkeypatch.syspath_prepend(str(tmp_path))
    games = discover()
    assert list(games) == [*BUILT_IN, "race"]
    assert isinstance(games["race"], Game) and games["race"].info.title == "Race"


def test_built_ins_come_once_whether_their_entry_points_are_installed_or_not(tmp_path, monkeypatch):
    # The project's own entry points, as an installed cardtable would have them.
    listed = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]
    ours = listed[GROUP]
    assert [v.split(":")[0] for v in ours.values()] == list(MODULES)
    assert list(ours) == BUILT_IN
    fake_distribution(tmp_path, "cardtable_again", ours, "")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert list(discover()) == BUILT_IN


def test_an_entry_point_that_is_not_a_game_is_an_error(tmp_path, monkeypatch):
    fake_distribution(tmp_path, "cardtable_bad", {"bad": "cardtable_bad:GAME"}, "GAME = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(GameNotAvailable, match="cardtable.games entry point bad"):
        discover()
