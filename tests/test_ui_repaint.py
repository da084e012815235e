"""A move repaints what it changed, in its own frame: the key bar, the log, the widgets that are
not redrawn when nothing changed, and the benchmark's key, which must show another move."""

from __future__ import annotations

import pytest
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.color import Color
from textual.containers import Vertical
from textual.geometry import Region
from textual.screen import Screen
from textual.widgets import Static

from xmas_tui.games import get_game
from xmas_tui.tools.ui_bench import GAMES, BoardBench, recorded
from xmas_tui.ui import paint, quick
from xmas_tui.ui.app import XmasApp
from xmas_tui.ui.keybar import KeyBar
from xmas_tui.ui.screens.dialogs import RulesScreen
from xmas_tui.ui.screens.table import GameLog, TableScreen
from xmas_tui.ui.theme import inks

from .uikit import my_turn, table_at, wait_for

CHIP = get_game("chip-n-dale")
SIZE = (80, 24)
#: a test of the quick renderer itself, against stock Textual: with it off, there is nothing to compare
QUICK = pytest.mark.skipif(not quick.ON, reason=f"the quick renderer is off: {quick.WHY}")


def table_screen(app: XmasApp) -> TableScreen:
    return next(s for s in app.screen_stack if isinstance(s, TableScreen))


@pytest.mark.parametrize("game_id", GAMES)
async def test_each_key_of_the_ui_bench_shows_the_next_move_of_a_real_game(game_id: str) -> None:
    """The benchmark times a key that changes what the board shows: every press publishes the
    next snapshot of a recorded game, and the screen changes with it (unless a dialog, such as
    a round's result, covers the table)."""
    app = BoardBench(recorded(game_id, moves=8))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: any(isinstance(s, TableScreen) for s in app.screen_stack))
        for _ in range(6):
            shown, before = table_screen(app).snapshot, app.export_screenshot()
            await pilot.press("f5")
            await wait_for(pilot, lambda shown=shown: table_screen(app).snapshot is not shown)
            await pilot.pause(0.05)
            screen = app.screen  # (a dialog's screen, or a board's dialog over the table)
            covered = not isinstance(screen, TableScreen) or any(w.display and w.styles.layer == "above" for w in screen.children)
            assert covered or app.export_screenshot() != before, game_id


async def test_the_key_bar_shows_the_game_keys_on_my_turn_and_a_click_presses_a_key() -> None:
    table = table_at(CHIP, 3, 7, lambda s: my_turn("flip")(s) and len(s.view["flipped"]) >= 2)  # (s stops now)
    app = XmasApp(table=table)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        bar = app.screen.query_one(KeyBar)
        line = str(bar.render())
        assert "1-6 Slot" in line and "s Stop" in line and "^p Commands" in line
        await pilot.click(KeyBar, offset=(line.index("? Rules"), 0))
        await wait_for(pilot, lambda: isinstance(app.screen, RulesScreen))


async def test_off_my_turn_the_key_bar_leaves_out_the_game_keys() -> None:
    table = table_at(CHIP, 3, 7, lambda s: not s.my_turn and s.result is None and len(s.log) > 4)
    app = XmasApp(table=table)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        line = str(app.screen.query_one(KeyBar).render())
        assert "Slot" not in line and "? Rules" in line and "^q Quit" in line


async def test_the_log_shows_the_newest_line_and_the_wheel_scrolls_it_back() -> None:
    table = table_at(CHIP, 4, 7, lambda s: s.my_turn and len(s.log) > 30)
    app = XmasApp(table=table)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        log = app.screen.query_one(GameLog)
        newest = app.screen.snapshot.log[-1].text
        await wait_for(pilot, lambda: newest.split()[-1] in str(log.render()).splitlines()[-1])
        assert log.border_subtitle == "↑ scroll up for more"
        shown = str(log.render())
        for _ in range(3):
            log.post_message(events.MouseScrollUp(log, 2, 2, 0, -1, 0, False, False, False))
        await wait_for(pilot, lambda: log.back == 3 and str(log.render()) != shown)
        assert str(log.render()).splitlines()[-1] == shown.splitlines()[-4]  # three lines back
        log.post_message(events.MouseScrollDown(log, 2, 2, 0, 1, 0, False, False, False))
        await wait_for(pilot, lambda: log.back == 2)


async def test_a_widget_is_repainted_only_when_what_it_shows_changes() -> None:
    table = table_at(CHIP, 3, 7, my_turn("flip"))
    app = XmasApp(table=table)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        status = app.screen.query_one("#status", Static)
        text = Text("Round 1", style="bold")
        assert paint.show(status, text)
        assert not paint.show(status, Text("Round 1", style="bold"))  # the same words, the same ink
        assert paint.show(status, Text("Round 1", style="dim"))  # another ink is another picture
        assert paint.show(status, Text("Round 2", style="dim"))


@pytest.mark.parametrize("game_id", ["christmas-carol", "christmas-tree", "christmas-game"])
async def test_the_key_bar_follows_the_turn_on_every_turn_based_board(game_id: str) -> None:
    """The game's keys appear in the key bar when my turn comes, and leave when it goes."""
    table = table_at(get_game(game_id), 3, 7, lambda s: not s.my_turn and s.result is None and len(s.log) > 4)
    app = XmasApp(table=table)
    app.pace = 0.05
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        screen = app.screen
        table.set_pace(0.05)
        bar = screen.query_one(KeyBar)
        shown = {b.description for b in type(screen.board).BINDINGS if b.show}
        assert not any(f" {words}" in str(bar.render()) for words in shown)
        await wait_for(pilot, lambda: screen.snapshot.my_turn, 60)
        await wait_for(pilot, lambda: any(f" {words}" in str(bar.render()) for words in shown))


async def test_a_game_left_for_the_next_does_not_stay_in_memory() -> None:
    """A party plays game after game in one app: each game's screen is freed once the next
    one starts (it used to stay alive, listening for a change of theme)."""
    import gc
    import weakref

    from xmas_tui.ui.screens.lobby import GameConfig

    tree = get_game("christmas-tree")
    app = XmasApp(GameConfig(tree, 3, "Ann", "smart", 1, 4.0, {}))
    screens: weakref.WeakSet[TableScreen] = weakref.WeakSet()
    async with app.run_test(size=SIZE) as pilot:
        for seed in range(2, 6):
            await wait_for(pilot, lambda: isinstance(app.screen, TableScreen) and app.screen not in screens)
            screens.add(app.screen)
            app.start_game(GameConfig(tree, 3, "Ann", "smart", seed, 4.0, {}))
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen) and app.screen not in screens)
        await pilot.pause(0.2)
        gc.unfreeze()
        gc.collect()
        assert len(screens) == 0  # the four games left behind, gone
        gc.freeze()


@QUICK
@pytest.mark.parametrize("game_id", GAMES)
async def test_a_terminal_fed_every_frame_shows_what_a_whole_repaint_shows(game_id: str) -> None:
    """The table screen renders only the widgets a frame changed, and writes only what the
    terminal does not show already (``PartialCompositor``): a terminal that was sent every
    frame of a dozen moves (Dragons & Chickens: a round's result opened over the table and
    closed again) shows, cell for cell and ink for ink, what drawing the whole screen shows."""
    app = BoardBench(recorded(game_id, moves=12))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        await pilot.pause(0.1)
        screen = app.screen
        terminal = Terminal(app, screen)
        partial = len(terminal.frames)
        compared = 0
        for _ in range(12):
            shown = screen.snapshot
            await pilot.press("f5")
            await wait_for(pilot, lambda shown=shown: screen.snapshot is not shown)
            await pilot.pause(0.05)
            if app.screen is not screen:
                continue  # (a dialog covers the table: it is drawn whole again when it closes)
            assert terminal.shows() == terminal.whole(), game_id
            compared += 1
        assert compared >= 5
        assert len(terminal.frames) > partial  # (the moves were painted in partial frames)


def test_the_quick_renderer_is_on_only_for_a_checked_textual_and_never_when_told_not_to_be() -> None:
    """Decided once, at import: on for a Textual version it was checked against, off for any
    other (stock Textual draws then) and off whenever ``XMAS_TUI_STOCK_RENDER=1`` is set."""
    import os
    import subprocess
    import sys
    from importlib.metadata import version

    assert quick.textual_version() == version("textual")  # (read from its folder's name, at no cost to the start)
    for checked in quick.CHECKED:
        assert quick.decide(checked, {}) == (True, f"quick renderer on Textual {checked}")
        assert quick.decide(checked, {quick.STOCK_RENDER: "0"})[0]
        on, why = quick.decide(checked, {quick.STOCK_RENDER: "1"})
        assert not on and quick.STOCK_RENDER in why
    for unchecked in ("8.2.7", "8.3.0", "9.0.0"):
        on, why = quick.decide(unchecked, {})
        assert not on and unchecked in why
    code = "from xmas_tui.ui import quick; print(quick.ON)"
    for value, on in (("1", False), ("", quick.decide(version("textual"), {})[0])):
        child = subprocess.run([sys.executable, "-c", code], env={**os.environ, quick.STOCK_RENDER: value},
                               capture_output=True, text=True, check=True)
        assert child.stdout.strip() == str(on)


async def test_a_table_is_drawn_by_the_quick_renderer_only_while_it_is_on() -> None:
    """With the quick renderer on, the table screen's frames and its boxes' lines are the quick
    renderer's; off, every one is stock Textual's."""
    app = BoardBench(recorded("christmas-tree", moves=4))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        screen = app.screen
        assert (quick.frames(screen) is not None) is quick.ON
        boxes = list(screen.query(paint.Panel))
        assert boxes and all(quick.draws_quick_lines(box) is quick.ON for box in boxes)


class Terminal:
    """A terminal (pyte's) fed every frame a screen's ``PartialCompositor`` writes, from a
    whole one on."""

    def __init__(self, app: App, screen: Screen) -> None:
        compositor = quick.frames(screen)
        assert compositor is not None
        self.console, self.compositor = app.console, compositor
        self.frames = [compositor.render_full_update().render_segments(self.console)]
        render_update = compositor.render_update

        def recorded_update(*args: object, **kwargs: object) -> object:
            update = render_update(*args, **kwargs)  # type: ignore[arg-type]
            if update is not None:
                self.frames.append(update.render_segments(self.console))  # type: ignore[union-attr]
            return update

        compositor.render_update = recorded_update  # type: ignore[method-assign]

    @staticmethod
    def cells(*frames: str) -> list[list[tuple]]:
        import pyte

        shown = pyte.Screen(*SIZE)
        stream = pyte.Stream(shown)
        for frame in frames:
            stream.feed(frame)
        return [[(c.data, c.fg, c.bg, c.bold, c.italics, c.reverse) for c in (shown.buffer[y][x] for x in range(SIZE[0]))]
                for y in range(SIZE[1])]

    def shows(self) -> list[list[tuple]]:
        return self.cells(*self.frames)

    def whole(self) -> list[list[tuple]]:
        """What drawing the whole screen afresh shows (as Textual draws it): every widget's
        lines are rendered again, none taken from what it kept."""
        return self.cells(quick.stock_frame(self.compositor).render_segments(self.console))


class Layered(Screen):
    """A box with words in it, and a label over it on a layer above."""

    DEFAULT_CSS = """
    Layered { layers: below above; }
    #box { height: 6; background: darkred; }
    #over { layer: above; offset: 3 1; width: 12; height: 3; background: darkgreen; }
    """

    def __init__(self) -> None:
        super().__init__()
        quick.install(self)

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield Static("inside the box", id="inner")
        yield Static("over it", id="over")


@QUICK
async def test_a_frame_leaves_alone_only_what_no_repaint_reaches() -> None:
    """A frame renders the widgets that asked to be repainted and what lies inside them (a box
    whose ground changes repaints the words on it), and nothing else: a label over them, left
    as the terminal shows it, keeps its cells (nothing behind it shows through)."""
    app = App()
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(Layered())
        await pilot.pause(0.1)
        screen = app.screen
        terminal = Terminal(app, screen)
        changes = [
            lambda: setattr(screen.query_one("#box").styles, "background", "darkblue"),
            lambda: screen.query_one("#inner", Static).update("other words inside the box, under the label"),
            lambda: screen.query_one("#over", Static).update("a new label"),
        ]
        for change in changes:
            before = len(terminal.frames)
            change()
            await pilot.pause(0.05)
            assert len(terminal.frames) == before + 1
            assert terminal.shows() == terminal.whole()
        screen.query_one("#box").refresh()  # (the same cells again: the terminal shows them, nothing is written)
        await pilot.pause(0.05)
        assert len(terminal.frames) == len(changes) + 1
        assert terminal.shows() == terminal.whole()
        assert "other words" in "".join(cell[0] for cell in terminal.shows()[0])


def test_while_a_game_is_shown_garbage_is_collected_between_moves() -> None:
    """Python collects its two older generations (milliseconds each) only when the table says
    so, between moves, as often as it would have by itself, and its youngest only after far
    more new objects than a move makes, unless the table says so first; letting go restores
    its rule."""
    import gc

    class Holder:
        pass

    before, others = gc.get_threshold(), paint.holding()
    first, second = Holder(), Holder()  # (two screens at once: the next game's comes up before the last goes)
    paint.hold_collections(first)
    paint.hold_collections(second)
    gc.disable()  # (only the collections made here: the counts are exact)
    try:
        assert gc.get_threshold()[0] == max(paint.YOUNG_HELD, before[0]) and min(gc.get_threshold()[1:]) > 10**6
        gc.collect()
        for _ in range(paint.OLDER_EVERY - 1):
            gc.collect(0)
        paint.tidy_memory()
        assert gc.get_count()[1] == paint.OLDER_EVERY - 1  # not due yet
        gc.collect(0)
        paint.tidy_memory()
        assert gc.get_count()[1] == 0  # the middle generation collected
        made = [[] for _ in range(before[0] + 10)]  # as many new objects as Python waits for
        assert gc.get_count()[0] >= before[0]
        paint.tidy_memory()
        assert gc.get_count()[:2] == (0, 1)  # the youngest generation collected
        del made
        paint.release_collections(first)
        assert min(gc.get_threshold()[1:]) > 10**6  # one holder is left
    finally:
        gc.enable()
        paint.release_collections(second)
    assert paint.holding() == others
    if not others:
        assert gc.get_threshold() == before
        held = Holder()
        paint.hold_collections(held)
        del held  # (a screen gone without letting go)
        gc.collect()
        paint.tidy_memory()
        assert gc.get_threshold() == before


def test_start_up_holds_collections_until_the_first_screen_says_started() -> None:
    """The command line loads and runs the app inside ``starting``: Python collects nothing by
    itself until the app's first screen is drawn (``started``: what start-up made is then set
    aside, frozen); and leaving ``starting`` lets go whatever happened, so an app that never
    started (a refused argument, a test's) leaves Python's rule as it was."""
    import gc

    from xmas_tui.ui import memory

    if paint.holding():
        pytest.skip("another holder is on (a screen of a test on this worker)")
    before, frozen = gc.get_threshold(), gc.get_freeze_count()
    try:
        with memory.starting():
            assert gc.get_threshold()[0] == max(memory.YOUNG_HELD, before[0]) and min(gc.get_threshold()[1:]) > 10**6
        # (never started: nothing set aside; the count may fall, as a thing an earlier test froze is freed)
        assert gc.get_threshold() == before and gc.get_freeze_count() <= frozen
        with memory.starting():
            memory.started()
            assert gc.get_threshold() == before and gc.get_freeze_count() > frozen
            memory.started()  # (once only)
        assert gc.get_threshold() == before
        memory.started()  # (nothing held: nothing done)
        assert gc.get_threshold() == before
    finally:
        gc.unfreeze()


def _cells(strips: list, width: int) -> list[list[tuple]]:
    """Each cell of ``strips`` as (character, colour, ground, bold, dim, italic, underline, strike,
    reverse); a blank cell's colour is left out (a space looks the same in any colour)."""
    rows = []
    for strip in strips:
        row = []
        for segment in strip.crop_extend(0, width, None):
            style = segment.style
            for char in segment.text:
                ink = None if char == " " or style is None else style.color
                ground = None if style is None else style.bgcolor
                attrs = () if style is None else (style.bold, style.dim, style.italic, style.underline, style.strike, style.reverse)
                row.append((char, ink, ground, *attrs))
        rows.append(row)
    return rows


WORDS = [
    Text("plain words"),
    Text("bold all through", style="bold #ffd700"),
    Text.assemble(("1 ", "bold #ffd700"), (" ▲ ", "bold #4cd964 on #1e5c33"), " ", (" ★ ", "bold #ffd700 on #5c4d0f"), ("  pay 1 ✓", "#9be39b")),
    Text.assemble(("dim ", "dim"), ("then bold", "bold"), (" then both", "bold dim #ff6b6b"), style="italic"),
    Text.assemble(("overlap", "#ff6b6b"), " and ", ("more", "underline")).append(" — wide: ☃★⊞ 雪", style="strike"),
    Text("a line much too long for the box it is drawn in, to be cut where the box ends " * 2, style="#9ad0ff"),
    Text("Two lines\nthe second one dim", style="bold").append(" and a tail", style="dim"),
    Text(""),
]


@pytest.mark.parametrize("words", WORDS, ids=[w.plain[:12] or "empty" for w in WORDS])
async def test_a_line_drawn_by_rich_has_the_cells_textual_draws(words: Text) -> None:
    """``text_strip`` (a board's line) and ``Words`` (a status, a prompt) draw what Textual draws
    for the same words: every cell's character, colours and attributes, at several widths."""
    from textual.app import App
    from textual.content import Content
    from textual.visual import Visual

    class Lines(App):
        def compose(self):
            yield paint.Words(id="words")
            yield Static(id="textual")

    app = Lines()
    async with app.run_test(size=(100, 12)) as pilot:
        ours, theirs = app.query_one("#words", paint.Words), app.query_one("#textual", Static)
        style = ours.visual_style
        ours.styles.text_wrap = "nowrap"  # (a line of a board's list: cut where it ends)
        for width in (12, 31, 80):
            for line in words.split("\n"):
                mine = paint.text_strip(ours, line, width, style)
                textual = Visual.to_strips(ours, Content.from_rich_text(line), width, None, style)[:1] or []
                assert _cells([mine], width) == _cells(textual, width)
                padded = paint.text_strip(ours, line, width, style, pad=True)
                assert padded.cell_length == width
        ours.styles.text_wrap = "wrap"
        for width in (12, 31):  # (wrapped to the width, line by line, as Textual wraps them)
            ours.styles.width = theirs.styles.width = width
            ours.update(words)
            theirs.update(words)
            await pilot.pause()
            assert ours.size == theirs.size  # (as many lines)
            lines = ours.size.height
            assert _cells([ours.render_line(y) for y in range(lines)], width) == _cells([theirs.render_line(y) for y in range(lines)], width)
            ours.styles.text_align = theirs.styles.text_align = "center"  # (a title over a board)
            await pilot.pause()
            assert ours._rich_text() is not None
            assert _cells([ours.render_line(y) for y in range(lines)], width) == _cells([theirs.render_line(y) for y in range(lines)], width)
            ours.styles.text_align = theirs.styles.text_align = "left"


BOXES = {  # (each box's own stylesheet: the quick styles cache or Textual draws its lines)
    "bare": "",
    "padded": "padding: 0 2;",
    "bordered": "border: round #2e7d32; padding: 0 1; border-title-color: #ffd700;",
    "tall": "border: tall #ff6b6b; padding: 1 1 0 0; background: #123a22 60%;",
    "left-edge": "border-left: heavy #9ad0ff; background: #5c4d0f;",
    "outlined": "outline: round #ffd700; padding: 0 1;",
    "faded": "border: round #2e7d32; text-opacity: 60%;",
    "tinted": "border: round #2e7d32; tint: #ff0000 30%;",
    "hatched": "hatch: cross #ff6b6b; padding: 0 1;",
}


@QUICK
async def test_a_box_of_words_draws_its_border_and_padding_as_textual_does() -> None:
    """``QuickLines`` puts each line of words between its border and padding, made once a
    render: every cell of every line is what Textual's own styles cache draws, for borders,
    paddings and grounds, and Textual draws what it does not cover (outline, opacity, tint,
    hatch)."""
    class Boxes(App):
        CSS = "\n".join(f"#{name} {{ height: 5; width: 30; {css} }}" for name, css in BOXES.items())

        def compose(self) -> ComposeResult:
            for name in BOXES:
                yield paint.Words(Text("words in a box, wrapped\nto its width ☃", style="bold #ffd700"), id=name)

    app = Boxes()
    async with app.run_test(size=(40, 5 * len(BOXES))) as pilot:
        await pilot.pause()
        for name in BOXES:
            box = app.query_one(f"#{name}", paint.Words)
            box.border_title = "A title"
            assert quick.draws_quick_lines(box)
            whole = Region(0, 0, *box.outer_size)
            assert _cells(box.render_lines(whole), 30) == _cells(quick.stock_lines(box, whole), 30), name


async def test_a_box_that_lights_up_repaints_its_border_only() -> None:
    """``wear_edge``: a box's border and title take a colour over the stylesheet's and give it
    back, repainting the border's lines and columns, not the words inside it."""
    class Lit(App):
        CSS = "#box { border: round #2e7d32; border-title-color: #9be39b; padding: 0 1; height: 5; }"

        def compose(self) -> ComposeResult:
            yield paint.Words("inside", id="box")

    app = Lit()
    async with app.run_test(size=(30, 6)) as pilot:
        await pilot.pause()
        box = app.query_one("#box", paint.Words)
        box.border_title = "Sets"
        await pilot.pause()
        drawn = box.render_lines(Region(0, 0, *box.outer_size))
        asked: list[Region] = []  # (what it asks to repaint: the whole box, when given no region)
        refresh = box.refresh
        box.refresh = lambda *regions, **how: asked.extend(regions or [box.outer_size.region]) or refresh(*regions, **how)  # type: ignore[method-assign]
        paint.wear_edge(box, "#ffd700")
        del box.refresh
        assert asked and all(r.width == 1 or r.height == 1 for r in asked)
        await pilot.pause()
        lit = box.render_lines(Region(0, 0, *box.outer_size))
        assert lit[0].text == drawn[0].text  # (its title: the same words)
        assert _cells([lit[2].crop(1, 29)], 28) == _cells([drawn[2].crop(1, 29)], 28)  # (the words inside: the same)
        assert {s.style.color.name for s in lit[0] if s.style and s.style.color} == {"#ffd700"}
        assert {s.style.color.name for s in (*lit[2].crop(0, 1), *lit[2].crop(29, 30))} == {"#ffd700"}
        paint.wear_edge(box)
        await pilot.pause()
        assert _cells(box.render_lines(Region(0, 0, *box.outer_size)), 30) == _cells(drawn, 30)


async def test_the_prompt_wears_my_turn_and_takes_it_off_again() -> None:
    """On my turn the prompt wears the live ground (set on the widget, not by a class that
    would match the whole stylesheet again); off my turn it is the stylesheet's prompt again."""
    app = BoardBench(recorded("christmas-tree", moves=40))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: any(isinstance(s, TableScreen) for s in app.screen_stack))
        screen = table_screen(app)
        prompt = screen.query_one("#prompt")
        looks: dict[bool, set] = {True: set(), False: set()}
        for _ in range(30):
            looks[screen.snapshot.my_turn].add(str(prompt.visual_style))
            await pilot.press("f5")
            await pilot.pause(0.02)
        assert len(looks[True]) == len(looks[False]) == 1, looks  # (the same look every time)
        mine, others = looks[True].pop(), looks[False].pop()
        assert mine != others and "bold" in mine and "bold" not in others
        assert Color.parse(inks(screen).prompt_live_ground).css in mine


async def test_words_given_a_string_draw_its_lines_once() -> None:
    """A string's words (the prompt's) are made a Text once, so its lines are drawn once, not
    again for every line Textual asks for."""
    from textual.app import App

    class One(App):
        def compose(self):
            yield paint.Words("Take a row: press 1-5.\nRow 1 is free.", id="words")

    async with One().run_test(size=(40, 6)) as pilot:
        await pilot.pause()
        words = pilot.app.query_one("#words", paint.Words)
        drawn = words._drawn
        assert drawn is not None
        for y in range(2):
            words.render_line(y)
        assert words._drawn is drawn


async def test_words_are_wrapped_once_for_the_layout_and_the_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    """Words whose height follows their lines (the prompt) are wrapped once a change: the
    layout's height and the frame's lines come from the same wrapping."""
    from textual.app import App

    wrapped = paint.wrapped
    calls = []
    monkeypatch.setattr(paint, "wrapped", lambda *args, **kwargs: calls.append(args[1].plain) or wrapped(*args, **kwargs))

    class Grows(App):
        CSS = "#words { height: auto; width: 20; }"

        def compose(self):
            yield paint.Words(id="words")

    async with Grows().run_test(size=(40, 8)) as pilot:
        words = pilot.app.query_one("#words", paint.Words)
        said = Text("Take a row: press 1-5, or pay a card onto the next row.")
        paint.show(words, said)
        await pilot.pause()
        assert words.size.height == 3
        assert calls.count(said.plain) == 1


async def test_a_row_of_boxes_is_drawn_again_only_when_a_box_changes() -> None:
    """``BoxRow.show_boxes`` given boxes that draw what it shows (new Texts, the same words and
    styles) draws nothing again; a box that changes is drawn."""
    from textual.app import App

    from xmas_tui.ui.boards.base import Box, BoxRow

    def boxes(words: str) -> list[Box]:
        return [Box(lines=(Text(words, style="bold"),), width=12, border="round", edge="#2e7d32", title=Text(str(n))) for n in (1, 2)]

    class Row(App):
        def compose(self):
            yield BoxRow(3, 1, width=25, id="row")

    async with Row().run_test(size=(30, 4)) as pilot:
        row = pilot.app.query_one("#row", BoxRow)
        row.show_boxes(boxes("a tile"))
        await pilot.pause()
        drawn = [row.line_text(y) for y in range(3)]
        redrawn = []
        row._draw = lambda: redrawn.append(True)  # type: ignore[method-assign]
        row.show_boxes(boxes("a tile"))
        assert not redrawn
        row.show_boxes(boxes("another"))
        assert redrawn
        assert "a tile" in drawn[1]


@QUICK
async def test_each_round_s_result_shows_that_round_s_room_on_the_terminal() -> None:
    """The round's result is filled while it is hidden, between rounds; its rows of cards
    repainted only the lines that changed, and a hidden widget has no lines to repaint, so
    from the second round on it showed the first round's room. Every time it opens, the
    terminal (fed every frame) shows the cards of the round it names."""
    from xmas_tui.ui.boards.base import BoxRow
    from xmas_tui.ui.boards.dragons_chickens_round import DragonsChickensRound

    app = BoardBench(recorded("dragons-chickens", moves=60))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        await pilot.pause(0.1)
        terminal = Terminal(app, app.screen)
        shown_rounds = set()
        for _ in range(40):
            await pilot.press("f5")
            await pilot.pause(0.05)
            result = app.screen.query_one(DragonsChickensRound)
            if not result.display:
                continue
            on_screen = ["".join(cell[0] for cell in line) for line in terminal.shows()]
            for row in result.query(BoxRow):
                for y in range(1, 3):  # (each card's two lines of treasures)
                    assert any(row.line_text(y) in line for line in on_screen), (result.record.round, row.line_text(y))
            shown_rounds.add(result.record.round)
        assert len(shown_rounds) >= 3
