"""The room store: Redis everywhere, external (``REDIS_URL``) or the embedded default."""

from server.store.redis_store import RedisStore, StoreUnavailable

__all__ = ["RedisStore", "StoreUnavailable"]
