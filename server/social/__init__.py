"""Playing with people: browser identities, the online list and lobby, challenges, block / mute /
favourite relations and table chat. State lives in the store so every server process shares it."""
