"""The web client's node tests check the button builder's steps against
web/test/fixtures/steps.schema.json: that file must be the server's step schema, as it is now."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from server.table.steps import Steps

FIXTURE = Path(__file__).parents[2] / "web" / "test" / "fixtures" / "steps.schema.json"


def test_the_fixture_is_the_servers_step_schema():
    want = json.loads(json.dumps(msgspec.json.schema(Steps)))
    assert json.loads(FIXTURE.read_text()) == want, (
        'regenerate it: .venv/bin/python -c "import json, msgspec; '
        "from server.table.steps import Steps; open('web/test/fixtures/steps.schema.json', 'w')"
        ".write(json.dumps(msgspec.json.schema(Steps), indent=1, sort_keys=True) + '\\n')\" "
        "then cd web && npx biome check --write test/fixtures/steps.schema.json"
    )
