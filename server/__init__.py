"""cardtable server: rooms, the table model, the Redis store and the Socket.IO/HTTP front."""
