"""Serving the app: requests aiohttp cannot parse get the JSON error shape, logged as the client's.

A request aiohttp's parser refuses (a request line or header over 8190 bytes, bytes that are not
HTTP, a bad URL) never reaches the app's middlewares: aiohttp answers a plain-text 400 without
the security headers and logs it at ERROR with a traceback. :class:`ClientErrorHandler` answers
it like every other error, ``400 {"code": "bad_request", "message", "ref": null}`` with the
headers of :data:`server.net.http.SECURITY_HEADERS`, and logs one DEBUG line: the client's fault,
not the server's (the access log still has its INFO line). Errors of the server itself (an
exception escaping a handler: 500) keep aiohttp's ERROR log and traceback.

aiohttp makes its connection handler inside ``web.Server``, so the handler comes in through
:class:`Runner`, used by :func:`serve` (``python -m server``) and by the tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError, LineTooLong

from server.errors import BAD_REQUEST, CardtableError
from server.net.http import SECURITY_HEADERS

log = logging.getLogger("cardtable.http")


class ClientErrorHandler(web.RequestHandler):
    """aiohttp's connection handler, answering unparseable requests in the JSON error shape."""

    def handle_error(
        self,
        request: Any,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        if (
            not isinstance(exc, HttpProcessingError)
            or status >= 500
            or request.writer.output_size > 0
        ):
            return super().handle_error(request, status, exc, message)
        log.debug(
            "refused a malformed HTTP request from %s: %s", request.remote, type(exc).__name__
        )
        if isinstance(exc, LineTooLong):
            text = "The request line or a header is too long (over 8190 bytes)."
        else:
            text = "The request could not be read as HTTP."
        resp = web.json_response(
            CardtableError(BAD_REQUEST, text).payload(), status=400, headers=SECURITY_HEADERS
        )
        resp.force_close()
        return resp


class _Server(web.Server):
    def __call__(self) -> web.RequestHandler:
        return ClientErrorHandler(self, loop=self._loop, **self._kwargs)


class Runner(web.AppRunner):
    """``web.AppRunner`` whose connections are handled by :class:`ClientErrorHandler`."""

    async def _make_server(self) -> web.Server:
        server = await super()._make_server()
        server.__class__ = _Server  # the same server, making our connection handler
        return server


def serve(app: web.Application, host: str, port: int, say: Callable[[str], None] = print) -> None:
    """Run ``app`` on ``host:port`` until SIGINT or SIGTERM (what ``web.run_app`` does, with
    :class:`Runner`)."""

    async def main() -> None:
        runner = Runner(app, handle_signals=True)
        await runner.setup()
        try:
            site = web.TCPSite(runner, host, port)
            await site.start()
            say(f"======== Running on {site.name} ========\n(Press CTRL+C to quit)")
            await asyncio.Event().wait()
        finally:
            await runner.cleanup()

    with contextlib.suppress(web.GracefulExit, KeyboardInterrupt):
        asyncio.run(main())
