"""``xmas-tui serve web``: the lobby in a browser tab, with textual-serve.

Owns: the web server (textual-serve's ``Server``, its page our own so that the
browser fetches nothing from anywhere but this machine, and its routes our own
so that no folder is ever listed), who may use it, and each tab's app: its own
process with a guest's name ("Guest 3", changed in the lobby) and a new data
folder (a tab has no key: ``identity.py``), at most ``--max-guests`` at once,
closed after ``--idle`` minutes without a key pressed.

Who may use it: a request must name this server as the browser reached it (the
``Host`` header: the address the connection came to, ``localhost``, or this
machine's own names), so a page of another site that a DNS rebinding points at
this machine gets nothing; and a tab's WebSocket must come from a page of this
server (its ``Origin``), so a page of another site open in a guest's browser
cannot start apps or take the places. The page never echoes ``Host``: the tab
connects back to the address it was loaded from, which the browser knows.

Must not touch: the games, the tables, Textual (each app runs in its own process).
"""

from __future__ import annotations

import asyncio
import ipaddress
import itertools
import shlex
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp_jinja2
import jinja2
from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int
from yarl import URL

from xmas_tui.serve import Listening, ServeError, until_stopped
from xmas_tui.serve.guests import GUEST_COMMAND, Guests, IdleClock, guest_environment, why_not
from xmas_tui.serve.identity import Guest, GuestBook
from xmas_tui.serve.registry import EVERYWHERE, join_words, serving

DEFAULT_PORT = 8000
TEMPLATES = Path(__file__).with_name("templates")
#: Variables textual-serve sets for an app it runs in a browser (the rest of a guest's
#: environment is ``guest_environment``'s, never the whole of the server's).
WEB_VARIABLES = ("TEXTUAL_DRIVER", "TEXTUAL_FPS", "TEXTUAL_COLOR_SYSTEM", "TERM_PROGRAM",
                 "TERM_PROGRAM_VERSION", "COLUMNS", "ROWS")  # fmt: skip


class GuestAppService(AppService):
    """textual-serve's app of one tab, run with a guest's environment."""

    def __init__(self, *args: Any, guest_env: dict[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.guest_env = guest_env

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        served = super()._build_environment(width=width, height=height)
        return {**self.guest_env, **{key: served[key] for key in WEB_VARIABLES if key in served}}


class WebServer(Server, Listening):
    """textual-serve's server, one app per browser tab, on ``bind:port`` (0: any free port)."""

    def __init__(self, bind: str = "0.0.0.0", port: int = DEFAULT_PORT, *, guests: Guests | None = None,
                 note: Callable[[str], None] | None = None) -> None:  # fmt: skip
        super().__init__("exec " + shlex.join(GUEST_COMMAND), host=bind, port=port, title="xmas-tui",
                         templates_path=TEMPLATES)  # fmt: skip
        self.bind = bind
        self.guests = guests or Guests()
        self.note = note or (lambda line: None)
        self.tabs: set[web.WebSocketResponse] = set()
        self.book = GuestBook()
        self.names = own_names(bind)
        self._numbers = itertools.count(1)
        self._runner: web.AppRunner | None = None

    async def on_startup(self, app: web.Application) -> None:
        """(textual-serve prints a banner here; ``serve`` prints how to join instead.)"""

    async def _make_app(self) -> web.Application:
        """textual-serve's routes, with every request's ``Host`` checked, and the static
        files served with no folder listed."""
        app = web.Application(middlewares=[self.check_host])
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        app.add_routes([
            web.get("/", self.handle_index, name="index"),
            web.get("/ws", self.handle_websocket, name="websocket"),
            web.get("/download/{key}", self.handle_download, name="download"),
            web.static("/static", self.statics_path, show_index=False, name="static"),
        ])  # fmt: skip
        app.on_startup.append(self.on_startup)
        app.on_shutdown.append(self.on_shutdown)
        return app

    def reached_as(self, request: web.Request, url: URL) -> bool:
        """``url`` (``http://HOST:PORT``) names this server as this connection reached it: the
        port it came to, and the address it came to or one of this machine's own names."""
        here = request.transport.get_extra_info("sockname") if request.transport is not None else None
        if not here or url.scheme != "http" or url.host is None or url.port != here[1]:
            return False
        return same_address(url.host, here[0]) or url.host.lower().rstrip(".") in self.names

    @web.middleware
    async def check_host(self, request: web.Request,
                         handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:  # fmt: skip
        """Answer only a request for this server by one of its addresses or names: a page of
        another site that DNS rebinding has pointed here is not served."""
        try:
            reached = self.reached_as(request, URL(f"http://{request.host}"))
        except ValueError:
            reached = False
        if not reached:
            raise web.HTTPForbidden(text="xmas-tui: this server answers to its own addresses only")
        return await handler(request)

    @aiohttp_jinja2.template("app_index.html")
    async def handle_index(self, request: web.Request) -> dict[str, Any]:
        """The page (which connects back to the address the browser loaded it from)."""
        return {
            "font_size": to_int(request.query.get("fontsize", "16"), 16),
            "static_url": "/static/",
            "title": self.title,
        }

    async def handle_websocket(self, request: web.Request) -> web.StreamResponse:
        """A browser tab: an app of its own while the tab stays, if there is a place for it
        and the tab is this server's own page."""
        try:
            from_here = self.reached_as(request, URL(request.headers.get("Origin", "")))
        except ValueError:
            from_here = False
        if not from_here:
            return web.Response(status=403, text="xmas-tui: a tab of another site cannot open a lobby here")
        if not self.guests.admit():
            return web.Response(status=503, text=f"xmas-tui: {self.guests.full_message()}")
        guest = self.new_guest()
        name = guest.name
        tab = web.WebSocketResponse(heartbeat=15)
        service: GuestAppService | None = None
        idle: IdleClock | None = None
        self.note(f"{name} joined ({self.guests.playing} playing)")
        try:
            await tab.prepare(request)
            self.tabs.add(tab)
            env = guest_environment(name, guest.home, term="xterm-256color", colorterm="truecolor")
            service = GuestAppService(self.command, write_bytes=tab.send_bytes, write_str=tab.send_str,
                                      close=tab.close, download_manager=self.download_manager, guest_env=env)  # fmt: skip
            idle = IdleClock(self.guests.idle, lambda: asyncio.ensure_future(tab.close()))
            keys = service.send_bytes

            async def send_keys(data: bytes) -> bool:
                idle.touch()
                return await keys(data)

            service.send_bytes = send_keys  # type: ignore[method-assign]  # (each key resets the idle clock)
            await service.start(to_int(request.query.get("width", "80"), 80), to_int(request.query.get("height", "24"), 24))
            await self._process_messages(tab, service)
        except (ConnectionError, ValueError, TypeError, AssertionError, IndexError, KeyError, AttributeError):
            pass  # a tab that went, or sent what a tab does not send: its app ends below
        finally:
            if idle is not None:
                idle.stop()
            if service is not None:
                await service.stop()  # (the app is asked to quit, and its last screen read)
                if service._process is not None:  # textual-serve keeps the process to itself
                    await service._process.wait()
            self.tabs.discard(tab)
            self.guests.leave()
            self.book.leave(guest)
            self.note(f"{name} left ({self.guests.playing} playing)")
        return tab

    def new_guest(self) -> Guest:
        """A tab is someone new, with no key: "Guest 3" (the next number no one holds) and a
        new, empty folder."""
        while isinstance(guest := self.book.enter(f"Guest {next(self._numbers)}", None), str):
            continue
        return guest

    async def start(self) -> int:
        """Listen; the port listened on."""
        self._runner = web.AppRunner(await self._make_app(), handle_signals=False, shutdown_timeout=5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.bind or None, self.port)
        try:
            await site.start()
        except OSError as exc:
            await self._runner.cleanup()
            raise ServeError(f"cannot serve the web on {self.bind}:{self.port} ({why_not(exc)})") from None
        self.port = self._runner.addresses[0][1]
        return self.port

    async def close(self) -> None:
        """Close every tab (each app quits) and stop listening."""
        await asyncio.gather(*(tab.close() for tab in list(self.tabs)), return_exceptions=True)
        if self._runner is not None:
            await self._runner.cleanup()


def same_address(host: str, address: str) -> bool:
    """``host`` (from a URL) is the IP ``address`` (a socket's, an IPv4 one perhaps in its
    IPv6 form ``::ffff:…``)."""
    try:
        ips = [ipaddress.ip_address(text.split("%")[0]) for text in (host, address)]
    except ValueError:
        return False
    mapped = [ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped else ip for ip in ips]
    return mapped[0] == mapped[1]


def own_names(bind: str) -> set[str]:
    """The names a browser may use for this machine: ``localhost``, its host name (alone,
    with ``.local`` and in full) and the name it is bound to, if it is one."""
    host = socket.gethostname().lower()
    names = {"localhost", host, f"{host}.local", socket.getfqdn().lower()}
    if bind not in EVERYWHERE:
        names.add(bind.lower())
    return {name.rstrip(".") for name in names if name}


async def serve(bind: str, port: int, *, guests: Guests, say: Callable[[str], None]) -> None:
    """``xmas-tui serve web``: serve until stopped, saying where to point a browser."""
    async with WebServer(bind, port, guests=guests, note=say) as server:
        say(f"xmas-tui serves the lobby to browsers on {bind}:{server.port}; guests open:")
        say(f"    {join_words('web', bind, server.port)}")
        say(f"At most {guests.most} tabs at once; a tab's app closes after {guests.idle_words()} without a key pressed. "
            "Ctrl+C stops.")  # fmt: skip
        with serving("web", bind, server.port):
            await until_stopped()
