"""Benchmarks: ``python -m bench`` and its modes (see bench/README.md)."""

from __future__ import annotations


def use_uvloop() -> str:
    """Run asyncio on uvloop when it is installed (as ``cardtable serve`` does); the loop's name."""
    try:
        import uvloop
    except ImportError:
        return "asyncio"
    uvloop.install()
    return "uvloop"
