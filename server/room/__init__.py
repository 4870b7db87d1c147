"""Rooms: the one reducer, players and seats, the host's powers, presence, room codes, the
room service (load, reduce, commit) and the ordered per-connection feed."""
