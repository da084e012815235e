"""``xmas-tui serve web``: a real headless Chromium loads the page and sees the lobby, from this
machine alone. Every server listens on 127.0.0.1 and the browser asks nothing of anywhere else."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import aiohttp

from tests.servekit import Browser, needs_chromium, until
from xmas_tui.serve.guests import Guests
from xmas_tui.serve.web import WebServer
from xmas_tui.tools.guest_terminal import Serving, alive, children_of, environment_of


@needs_chromium
async def test_a_browser_tab_gets_a_lobby_of_its_own_and_fetches_nothing_from_elsewhere() -> None:
    async with Serving("web") as server:
        assert server.process is not None
        origin = f"127.0.0.1:{server.port}"
        async with Browser() as browser:
            await browser.open(f"http://{origin}/")
            text = await browser.wait_for_text("Lobby")
            assert "Play vs bots" in text and "Guest 1" in text
            [app] = children_of(server.process.pid)
            assert environment_of(app)["XMAS_TUI_NAME"] == "Guest 1"

            await browser.press_ctrl("s")  # Ctrl+S: play against bots, in the browser too
            await browser.wait_for_text("Round 1/")

            asked = browser.requested()
            assert f"http://{origin}/" in asked and any(url.startswith(f"ws://{origin}/ws") for url in asked)
            assert all(url.startswith((f"http://{origin}/", f"ws://{origin}/")) for url in asked), asked
        await server.wait_for_line(r"Guest 1 left \(0 playing\)")
        await until(lambda: not alive(app), 15, "the tab's app has ended")


async def test_the_page_never_echoes_the_host_header_and_a_foreign_host_gets_nothing() -> None:
    """The page names no address at all (the tab connects back to where it was loaded from);
    a Host that names another site (a DNS rebinding's) is refused whatever the path."""
    async with WebServer("127.0.0.1", 0) as server:
        port = server.port
        async with aiohttp.ClientSession() as http:
            for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST.:{port}"):
                async with http.get(f"http://127.0.0.1:{port}/", headers={"Host": host}) as page:
                    html = await page.text()
                    assert page.status == 200
                assert "127.0.0.1" not in html and "localhost" not in html.lower() and "ws://" in html
                assert "location.host" in html and "googleapis" not in html and "https://" not in html
            hostile = ["evil.example", f"evil.example:{port}", f"127.0.0.1.evil.example:{port}",
                       f"127.0.0.1:{port + 1}", f"localhost:{port}\"><script>alert(1)</script>"]  # fmt: skip
            for host in hostile:
                for path in ("/", "/static/js/textual.js", "/ws"):
                    async with http.get(f"http://127.0.0.1:{port}{path}", headers={"Host": host}) as answer:
                        assert answer.status == 403, (host, path)
                        assert "evil" not in await answer.text()
        assert server.guests.playing == 0


async def test_the_static_files_are_served_but_no_folder_is_listed() -> None:
    async with WebServer("127.0.0.1", 0) as server, aiohttp.ClientSession() as http:
        base = f"http://127.0.0.1:{server.port}"
        async with http.get(f"{base}/static/js/textual.js") as script:
            assert script.status == 200 and "WebSocket" in await script.text()
        for folder in ("/static/", "/static/js/", "/static/js", "/static/fonts/"):
            async with http.get(f"{base}{folder}") as answer:
                text = await answer.text()
                assert answer.status in (403, 404), folder
                assert "textual.js" not in text and "Index of" not in text, folder


async def test_a_websocket_from_another_sites_page_is_refused_and_takes_no_place() -> None:
    """Any page a guest's browser opens could otherwise start apps here and use up every
    place: a tab's WebSocket must come from this server's own page (its Origin)."""
    async with WebServer("127.0.0.1", 0, guests=Guests(most=1)) as server:
        port = server.port
        async with aiohttp.ClientSession() as http:
            foreign = [{"Origin": "http://evil.example"}, {"Origin": f"http://evil.example:{port}"},
                       {"Origin": "null"}, {"Origin": f"https://127.0.0.1:{port}"},
                       {"Origin": f"http://127.0.0.1:{port + 1}"}, {}]  # fmt: skip
            for headers in foreign:
                async with http.get(f"http://127.0.0.1:{port}/ws", headers={**headers, **UPGRADE}) as answer:
                    assert answer.status == 403, headers
                    assert "another site" in await answer.text()
                assert server.guests.playing == 0
            async with tab_of(server, http) as tab:  # this server's own page: a lobby
                assert not tab.closed
            await until(lambda: server.guests.playing == 0, 20, "the tab has left")
            for origin in (f"http://localhost:{port}", f"http://127.0.0.1:{port}"):
                async with http.ws_connect(f"http://127.0.0.1:{port}/ws", origin=origin) as tab:
                    await until(lambda: server.guests.playing == 1, 10, "the tab's app runs")
                await until(lambda: server.guests.playing == 0, 20, "the tab has left")


#: A browser's WebSocket handshake (the page asks with these, and its Origin).
UPGRADE = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
           "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}  # fmt: skip


@contextlib.asynccontextmanager
async def tab_of(server: WebServer, http: aiohttp.ClientSession) -> AsyncIterator[aiohttp.ClientWebSocketResponse]:
    """A browser tab's connection (as the page makes it), once its app runs."""
    playing = server.guests.playing
    url = f"http://127.0.0.1:{server.port}"
    async with http.ws_connect(f"{url}/ws?width=80&height=24", origin=url) as tab:
        await until(lambda: server.guests.playing == playing + 1, 10, "the tab's app runs")
        yield tab


async def test_when_every_place_is_taken_another_tab_is_turned_away() -> None:
    async with WebServer("127.0.0.1", 0, guests=Guests(most=1)) as server:
        async with aiohttp.ClientSession() as http:
            async with tab_of(server, http) as first:
                url = f"http://127.0.0.1:{server.port}"
                async with http.get(f"{url}/ws", headers={"Origin": url, **UPGRADE}) as second:
                    assert second.status == 503
                    assert "all 1 places are taken" in await second.text()
                await first.close()
        await until(lambda: server.guests.playing == 0, 20, "the first tab has left")


async def test_a_tab_without_a_key_for_too_long_has_its_app_closed() -> None:
    async with WebServer("127.0.0.1", 0, guests=Guests(idle=2.0)) as server:
        async with aiohttp.ClientSession() as http:
            async with tab_of(server, http) as tab:
                closed = await asyncio.wait_for(until_closed(tab), 20)
                assert closed
        await until(lambda: server.guests.playing == 0, 20, "the tab's app has ended")


async def until_closed(tab: aiohttp.ClientWebSocketResponse) -> bool:
    async for _message in tab:
        pass
    return tab.closed
