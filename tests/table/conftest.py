from __future__ import annotations

import pytest

from server.table.objects import Table
from tests.table.helpers import add_misc, seated_table


@pytest.fixture
def t() -> Table:
    """The standard template, 4 seats all taken, a spectator, chips/counter/die/label."""
    table = seated_table()
    add_misc(table)
    return table
