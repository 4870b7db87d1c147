"""The pure table model: objects, operations and per-seat visibility. No I/O lives here."""
