"""Homemade games: game files (layout and position as versioned JSON), uploaded images, the
built-in library, and the room-level side (rooms made from files, export)."""
