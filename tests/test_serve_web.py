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


async def test_the_page_points_back_at_the_address_the_browser_used() -> None:
    """Whatever ``--bind`` is, the page's websocket goes to the host the browser typed."""
    async with WebServer("127.0.0.1", 0) as server:
        port = server.port
        async with aiohttp.ClientSession() as http:
            for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
                async with http.get(f"http://127.0.0.1:{port}/", headers={"Host": host}) as page:
                    html = await page.text()
                assert f'data-session-websocket-url="ws://{host}/ws"' in html
                assert "googleapis" not in html and "https://" not in html


@contextlib.asynccontextmanager
async def tab_of(server: WebServer, http: aiohttp.ClientSession) -> AsyncIterator[aiohttp.ClientWebSocketResponse]:
    """A browser tab's connection (as the page makes it), once its app runs."""
    playing = server.guests.playing
    async with http.ws_connect(f"http://127.0.0.1:{server.port}/ws?width=80&height=24") as tab:
        await until(lambda: server.guests.playing == playing + 1, 10, "the tab's app runs")
        yield tab


async def test_when_every_place_is_taken_another_tab_is_turned_away() -> None:
    async with WebServer("127.0.0.1", 0, guests=Guests(most=1)) as server:
        async with aiohttp.ClientSession() as http:
            async with tab_of(server, http) as first:
                async with http.get(f"http://127.0.0.1:{server.port}/ws") as second:
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
