"""The cardtable command line: flags over environment over defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.__main__ import config_from_args


def test_defaults_use_the_embedded_store(monkeypatch):
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("PORT", raising=False)
    cfg = config_from_args(["serve"])
    assert (cfg.host, cfg.port, cfg.redis_url, cfg.data_dir) == (
        "127.0.0.1",
        8080,
        None,
        Path("var"),
    )
    assert cfg.fsync == "always" and cfg.grace_seconds == 120 and cfg.limits.max_objects == 1500


def test_environment_then_flags(monkeypatch):
    monkeypatch.setenv("REDIS_URL", "redis://env:6379/0")
    monkeypatch.setenv("PORT", "9000")
    cfg = config_from_args(["serve"])
    assert cfg.redis_url == "redis://env:6379/0" and cfg.port == 9000
    cfg = config_from_args(
        [
            "serve",
            "--port",
            "9100",
            "--redis-url",
            "redis://flag/1",
            "--max-objects",
            "50",
            "--grace",
            "5",
            "--fsync",
            "everysec",
        ]
    )
    assert cfg.port == 9100 and cfg.redis_url == "redis://flag/1"
    assert cfg.limits.max_objects == 50 and cfg.grace_seconds == 5 and cfg.fsync == "everysec"


def test_help_names_every_setting(capsys):
    with pytest.raises(SystemExit) as done:
        config_from_args(["serve", "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    for flag in (
        "--host",
        "--port",
        "--redis-url",
        "--data-dir",
        "--log-level",
        "--grace",
        "--trusted-proxy",
        "--misses-per-minute",
        "--misses-per-day",
    ):
        assert flag in text


def test_trusted_proxies_and_miss_limits(monkeypatch, capsys):
    monkeypatch.delenv("CARDTABLE_TRUSTED_PROXIES", raising=False)
    cfg = config_from_args(["serve"])
    assert cfg.trusted_proxies == [] and (cfg.misses_per_minute, cfg.misses_per_day) == (10, 50)
    monkeypatch.setenv("CARDTABLE_TRUSTED_PROXIES", "10.0.0.0/8, fd00::/8")
    cfg = config_from_args(["serve"])
    assert [str(n) for n in cfg.trusted_proxies] == ["10.0.0.0/8", "fd00::/8"]
    cfg = config_from_args(
        [
            "serve",
            "--trusted-proxy",
            "192.168.0.0/16",
            "--trusted-proxy",
            "127.0.0.1",
            "--misses-per-minute",
            "5",
            "--misses-per-day",
            "20",
        ]
    )
    assert [str(n) for n in cfg.trusted_proxies] == ["192.168.0.0/16", "127.0.0.1/32"]
    assert (cfg.misses_per_minute, cfg.misses_per_day) == (5, 20)
    with pytest.raises(SystemExit) as done:
        config_from_args(["serve", "--trusted-proxy", "proxy.local"])
    assert done.value.code == 2
    assert "not an IP network or address: 'proxy.local'" in capsys.readouterr().err


def test_readme_table_of_settings_is_generated_from_the_config_fields():
    """README's table is what ``make generate`` writes from server/config.py: change a default,
    a flag or a help text there and this fails until the table is generated again."""
    from server.config import ROOT
    from server.settings_doc import with_table

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert with_table(readme) == readme, "README's settings table drifted: run `make generate`"


def test_every_flag_and_default_comes_from_one_config_field(capsys):
    from server.config import Config, settings

    base = Config()
    with pytest.raises(SystemExit):
        config_from_args(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for one in settings():
        assert f"--{one.flag}" in text
        assert f"(default {one.shown_default().replace('`', '')}" in text
        if "." not in one.name:
            assert one.default == getattr(base, one.name)
    flagged = {one.name for one in settings()}
    assert {"host", "port", "redis_url", "grace_seconds", "trusted_proxies"} <= flagged
