"""Rule games on the table: the link between plugins' engines and the table, one game
session per commit, and the game view sent as a patch."""
