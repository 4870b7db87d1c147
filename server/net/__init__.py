"""The network front: HTTP routes, Socket.IO handlers, the hardened Engine.IO/Socket.IO
servers, the wire codec, client event schemas, client addresses and input limits."""
