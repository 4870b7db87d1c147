"""The room store: the interface (:mod:`server.store.base`) and Redis behind it, external
(``REDIS_URL``) or the embedded default (:mod:`server.store.redis_store`)."""
