"""The ``xmas-tui`` command: its verbs, flags and one-line errors.

Owns: parsing the command line and turning a bad argument into one clear
line on stderr and exit code 2 (never a traceback). Starting the UI is
deferred to ``xmas_tui.ui`` so that ``rules`` and ``simulate`` never load
Textual; it is loaded and run with Python's collections held until its first
screen is drawn (``ui.memory.starting``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from .bots import BOT_KINDS, LEGACY
from .games import GAMES, Game, count, get_game
from .names import default_name
from .outside import plain
from .ui.memory import starting

EXIT_USAGE = 2
OPTION_HELP = (
    "a table option of the game, repeatable; lists are comma-separated; seats count from 1, "
    "you are 1 (e.g. christmas-carol puzzles=3,4,5,6; christmas-game young=1,3; first=2 in "
    "chip-n-dale, christmas-tree and christmas-carol: who starts; see `xmas-tui rules GAME`)"
)
CARDS_HELP = (
    "christmas-game: a TOML file of your party's own Santa, Scrooge and Reindeer cards "
    "(default: $XDG_DATA_HOME/xmas-tui/cards.toml, if there is one; see the README)"
)
LOG_HELP = "where to write the game log at the end (default: the games folder under $XDG_DATA_HOME/xmas-tui)"
MAX_NAME = 16


class UsageError(Exception):
    """A bad command-line argument: printed as one line, exit 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def game_arg(value: str) -> Game:
    try:
        return get_game(value)
    except KeyError as exc:
        raise argparse.ArgumentTypeError(exc.args[0]) from None


def name_arg(value: str) -> str:
    name = " ".join(value.split())
    if not name:
        raise argparse.ArgumentTypeError("a name needs at least one letter")
    if len(name) > MAX_NAME:
        raise argparse.ArgumentTypeError(f"a name is at most {MAX_NAME} characters")
    if not name.isprintable():
        raise argparse.ArgumentTypeError("a name must be printable text")
    return name


def whole_number(value: str, least: int) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if number < least:
        raise argparse.ArgumentTypeError(f"{value} must be at least {least}")
    return number


def positive_int(value: str) -> int:
    return whole_number(value, 1)


def seed_arg(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed {value!r} is not a whole number") from None


def bot_kind(value: str) -> str:
    """A level of bots (``BOT_KINDS``); the legacy "smart" is still understood."""
    if value not in BOT_KINDS and value != LEGACY:
        raise argparse.ArgumentTypeError(f"invalid choice: {value!r} (choose from {', '.join(BOT_KINDS)})")
    return value


def levels_arg(value: str) -> tuple[str, ...]:
    """``easy,hard``: the bots' levels for a mixed simulation."""
    levels = tuple(part.strip() for part in value.split(","))
    for level in levels:
        bot_kind(level)
    return levels


BOT_METAVAR = "{" + ",".join(BOT_KINDS) + "}"


def number_between(value: str, low: float, high: float, what: str, unit: str = " seconds") -> float:
    """``value`` as a number from ``low`` to ``high``, or one line saying what it should be."""
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} {value!r} is not a number{unit and ' of' + unit}") from None
    if not low <= number <= high:
        raise argparse.ArgumentTypeError(f"{what} is between {low:g} and {high:g}{unit}")
    return number


def pace_arg(value: str) -> float:
    return number_between(value, 0.05, 4, "pace")


def non_negative_int(value: str) -> int:
    return whole_number(value, 0)


def port_arg(value: str) -> int:
    try:
        port = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"port {value!r} is not a number") from None
    if not 0 <= port < 65536:
        raise argparse.ArgumentTypeError("a port is between 0 and 65535")
    return port


def pace_free_seconds(value: str) -> float:
    return number_between(value, 0, 3600, "the time")


def turn_time_arg(value: str) -> float | None:
    """Seconds for a move (5-3600), or 0 for no turn timer."""
    if value.strip() in ("0", "0.0"):
        return None
    return number_between(value, 5, 3600, "a turn")


def address_arg(value: str) -> tuple[str, int]:
    from .tables.network import parse_address

    try:
        return parse_address(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def password_arg(value: str) -> str:
    if not value:
        raise argparse.ArgumentTypeError("a password needs at least one character")
    return value


CODE_HELP = "case, spaces and dashes do not count, and O is read as 0, I and L as 1"


def code_arg(value: str) -> str:
    """A join code as typed (shown so), if it is one: every side keys on its normal form.
    A typed code needs `netcode.codes.MIN_CODE` letters and digits: each wrong guess costs an
    online attempt the host sees and slows, but a short code is still guessable."""
    from .tables.network import MIN_CODE, code_key, code_problem

    problem = code_problem(value)
    if problem is not None:
        short = code_key(value).isalnum() and len(code_key(value)) < MIN_CODE
        raise argparse.ArgumentTypeError(problem + (": leave out --code and the host makes one up, like ABCD-2345"
                                                    if short else ""))
    return " ".join(value.split()).upper()


THEMES = ("dark", "light", "projector")


def add_theme(parser: argparse.ArgumentParser) -> None:
    """``--theme``, before or after the verb (not given: the theme chosen last time)."""
    parser.add_argument("--theme", choices=THEMES, default=argparse.SUPPRESS,
                        help="the colours: dark, light, or projector (the strongest contrast); remembered")


def build_parser() -> Parser:
    games = ", ".join(sorted(GAMES))
    parser = Parser(
        prog="xmas-tui",
        description="Christmas tabletop games in the terminal. With no verb, opens the lobby.",
    )
    add_theme(parser)
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=Parser)

    play = verbs.add_parser("play", help="you against bots on this terminal")
    play.add_argument("game", type=game_arg, metavar="GAME", help=games)
    play.add_argument("--players", type=positive_int, default=None, help="seats at the table, you included")
    play.add_argument("--seed", type=seed_arg, default=None, help="the same seed deals the same game")
    play.add_argument("--name", type=name_arg, action="append", default=None,
                      help="your name at the table; repeat it for each player sharing the keyboard")
    play.add_argument("--local-players", type=positive_int, default=1, metavar="N",
                      help="people sharing this keyboard, each with their own keys (dragons-chickens: up to 3)")
    play.add_argument("--bot", type=bot_kind, metavar=BOT_METAVAR, default="sensible", help="how well the bots play")
    play.add_argument("--pace", type=pace_arg, default=0.9, help="seconds between bot moves (0.05-4)")
    play.add_argument("--log", default=None, metavar="PATH", help=LOG_HELP)
    add_theme(play)
    play.add_argument("--option", type=option_arg, action="append", default=None, metavar="NAME=VALUE", help=OPTION_HELP)
    play.add_argument("--cards", default=None, metavar="FILE", help=CARDS_HELP)

    host = verbs.add_parser("host", help="host a networked table on this machine")
    host.add_argument("game", type=game_arg, metavar="GAME", help=games)
    host.add_argument("--players", type=positive_int, default=None, help="seats at the table, yours included")
    host.add_argument("--code", type=code_arg, default=None, help=f"the join code (made up for you if not given; {CODE_HELP})")
    host.add_argument("--port", type=port_arg, default=0, help="UDP port to play on (default: any free port)")
    host.add_argument("--bind", default="0.0.0.0", metavar="ADDRESS", help="local address to play on (default: every interface)")
    host.add_argument("--name", type=name_arg, default="Host", help="your name at the table")
    host.add_argument("--bot", type=bot_kind, metavar=BOT_METAVAR, default="sensible", help="how bots play seats nobody takes")
    host.add_argument("--bots", type=non_negative_int, default=0, help="seats bots take from the start")
    host.add_argument("--hold", type=pace_free_seconds, default=30.0, help="seconds a dropped player's seat waits before a bot plays it")
    host.add_argument("--turn-time", type=turn_time_arg, default=None, metavar="SECONDS",
                      help="seconds a player has for a move before a bot plays it for them (default: no timer)")
    host.add_argument("--no-peek", action="store_true",
                      help="the players' programs deal and open the cards: this machine sees no card of theirs")
    host.add_argument("--discovery", type=address_arg, default=None, help="where to announce the table (HOST:PORT; default: LAN broadcast)")
    host.add_argument("--seed", type=seed_arg, default=None)
    host.add_argument("--headless", action="store_true", help="no terminal: a bot plays your seat; print a JSON result")
    host.add_argument("--json", action="store_true", help="print the JSON result line (implied by --headless)")
    host.add_argument("--pace", type=pace_free_seconds, default=0.0, metavar="SECONDS",
                      help="with --headless: the seconds your bot takes for each move (a game can be interrupted mid-way)")
    host.add_argument("--log", default=None, metavar="PATH", help=LOG_HELP)
    add_theme(host)
    host.add_argument("--option", type=option_arg, action="append", default=None, metavar="NAME=VALUE", help=OPTION_HELP)
    host.add_argument("--cards", default=None, metavar="FILE", help=CARDS_HELP)

    join = verbs.add_parser("join", help="join a networked table")
    join.add_argument("--address", type=address_arg, default=None, help="HOST:PORT of the table, where discovery cannot reach")
    join.add_argument("--code", type=code_arg, required=False, default=None,
                      help=f"the join code shown on the host's screen ({CODE_HELP}); without --address, "
                      "joins the one table heard that the code may open")
    join.add_argument("--name", type=name_arg, default=None, help="your name at the table")
    join.add_argument("--game", type=game_arg, default=None, help="only join a table of this game")
    join.add_argument("--bot", type=bot_kind, metavar=BOT_METAVAR, default="sensible", help="with --headless: how your bot plays")
    join.add_argument("--discovery", type=address_arg, default=None, help="where tables are announced (HOST:PORT)")
    join.add_argument("--headless", action="store_true", help="no terminal: a bot plays your seat; print a JSON result")
    join.add_argument("--log", default=None, metavar="PATH", help=LOG_HELP)
    join.add_argument("--pace", type=pace_free_seconds, default=0.0, metavar="SECONDS",
                      help="with --headless: the seconds your bot takes for each move (a game can be interrupted mid-way)")
    add_theme(join)

    watch = verbs.add_parser("watch", help="the big-screen view of a table, for a projector")
    watch.add_argument("--address", type=address_arg, default=None, help="HOST:PORT of the table, where discovery cannot reach")
    watch.add_argument("--code", type=code_arg, required=True, help=f"the join code shown on the host's screen ({CODE_HELP})")
    watch.add_argument("--game", type=game_arg, default=None, help="only watch a table of this game")
    watch.add_argument("--discovery", type=address_arg, default=None, help="where tables are announced (HOST:PORT)")
    add_theme(watch)

    verify = verbs.add_parser("verify", help="re-run the fair-play audit of a game log, offline")
    verify.add_argument("logfile", metavar="LOGFILE", help="a game log written at the end of a game")
    verify.add_argument("--json", action="store_true", help="print the verdict as one JSON line")

    replay = verbs.add_parser("replay", help="step through a finished game's log on its board")
    replay.add_argument("logfile", metavar="LOGFILE", help="a game log written at the end of a game")
    replay.add_argument("--seat", type=positive_int, default=None, metavar="N",
                        help="whose view to show first (seats count from 1; default: the log's own seat)")
    add_theme(replay)

    rules = verbs.add_parser("rules", help="the rules and our rulings")
    rules.add_argument("game", type=game_arg, metavar="GAME", help=games)

    serve = verbs.add_parser("serve", help="guests with nothing installed join over SSH or from a browser")
    ways = serve.add_subparsers(dest="way", metavar="ssh|web", required=True, parser_class=Parser)
    ssh = ways.add_parser("ssh", help="an SSH server: any `ssh -p PORT NAME@HOST` reaches the lobby as NAME")
    ssh.add_argument("--port", type=port_arg, default=2222, help="TCP port (default 2222; 0: any free port)")
    ssh.add_argument("--password", type=password_arg, default=None, metavar="TEXT",
                     help="every guest must give this password (default: none is asked)")
    web = ways.add_parser("web", help="a web server: each browser tab is a lobby of its own")
    web.add_argument("--port", type=port_arg, default=8000, help="TCP port (default 8000; 0: any free port)")
    for way in (ssh, web):
        way.add_argument("--bind", default="0.0.0.0", metavar="ADDRESS", help="local address to serve on (default: every interface)")
        way.add_argument("--max-guests", type=positive_int, default=16, metavar="N", help="guests playing at once (default 16)")
        way.add_argument("--idle", type=non_negative_int, default=30, metavar="MINUTES",
                         help="a guest's app closes after this long without a key pressed (default 30; 0: never)")

    sim = verbs.add_parser("simulate", help="many bot games, headless, with figures")
    sim.add_argument("game", type=game_arg, metavar="GAME", help=games)
    sim.add_argument("--games", type=positive_int, default=100)
    sim.add_argument("--players", type=positive_int, default=None)
    sim.add_argument("--seed", type=seed_arg, default=1)
    sim.add_argument("--levels", type=levels_arg, default=(), metavar="LEVEL,LEVEL…",
                     help="mixed bots, e.g. easy,hard: seated in turn, every level at every seat; "
                     "the figures count wins by level")
    sim.add_argument("--bot", type=bot_kind, metavar=BOT_METAVAR, default="random",
                     help="the bots' level; with --levels, the others'")
    sim.add_argument("--json", action="store_true", help="end with one JSON line of figures")
    sim.add_argument("--option", type=option_arg, action="append", default=None, metavar="NAME=VALUE", help=OPTION_HELP)
    sim.add_argument("--network", action="store_true",
                     help="one whole networked table in virtual time: a host, every seat and spectators, each "
                          "on its own channel over a simulated lossy LAN, bots at every seat")
    sim.add_argument("--spectators", type=non_negative_int, default=0, help="with --network: peers who watch")
    sim.add_argument("--no-peek", action="store_true",
                     help="with --network: the players' programs deal and open the cards")
    sim.add_argument("--loss", type=loss_arg, default=0.0, help="with --network: the share of datagrams lost (0-0.5)")
    sim.add_argument("--pace", type=pace_free_seconds, default=1.0,
                     help="with --network: virtual seconds a bot takes for a move")
    sim.add_argument("--cards", default=None, metavar="FILE", help=CARDS_HELP)
    sim.add_argument("--adversary", type=adversary_arg, default=None, metavar="NAME[@SEAT]",
                     help="with --network: the program at SEAT (default 2) is a bad one (host-…: the host's "
                          "program is, at a no-peek table, and SEAT its victim): " + ", ".join(ADVERSARIES))
    return parser


#: the adversaries ``simulate --network --adversary`` knows (``xmas_tui.tables.adversary``)
ADVERSARIES = ("forge-share", "forge-share-stall", "withhold-ballot", "forge-ballot", "flood", "replay", "late-pongs",
               "forged-pongs", "host-drops-nonce", "host-forges-move", "host-frames", "host-repeats", "host-holds-back",
               "host-drops-reveals", "host-takes-seat")


def adversary_arg(text: str) -> tuple[str, int]:
    """``NAME`` or ``NAME@SEAT`` (seats count from 1, as on screen)."""
    name, _, seat = text.partition("@")
    if name not in ADVERSARIES:
        raise argparse.ArgumentTypeError(f"{name!r} is not an adversary: choose one of {', '.join(ADVERSARIES)}")
    if seat and not (seat.isdigit() and int(seat) >= 2):
        raise argparse.ArgumentTypeError(f"{seat!r} is not a seat of another machine (2 or more)")
    return name, int(seat) - 1 if seat else 2


def loss_arg(value: str) -> float:
    return number_between(value, 0, 0.5, "a loss", unit="")


def option_arg(text: str) -> tuple[str, object]:
    """``NAME=VALUE``; a value of whole numbers (``3,4,5,6`` or ``0``) becomes a list of them."""
    name, sep, value = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=VALUE")
    parts = [p for p in value.replace(",", " ").split()]
    if parts and all(p.isdigit() for p in parts):
        return name, [int(p) for p in parts]
    return name, value.strip()


def options_for(game: Game, players: int, given: Sequence[tuple[str, object]] | None, cards: str | None = None) -> dict:
    """The table options for ``game`` (with the party's own cards, from ``--cards FILE`` or
    the data folder), checked by dealing a trial game with them."""
    options = dict(given or [])
    unknown = sorted(set(options) - set(game.option_names))
    if unknown:
        known = ", ".join(game.option_names) or "none"
        raise UsageError(f"{game.id} has no option {unknown[0]!r} (its options: {known})")
    options.update(personal_cards_for(game, cards))
    if options:
        from .games import Rng
        from .simulate import bot_names

        try:
            game.setup(options, bot_names(players), Rng(0))
        except (ValueError, TypeError, KeyError) as exc:
            raise UsageError(f"--option: {exc}") from None
    return options


def personal_cards_for(game: Game, given: str | None) -> dict:
    """The option ``cards`` of a game that takes the party's own cards: from ``given``, else
    from the data folder's cards.toml if there is one. Every problem is a line of its own."""
    from .files import FileProblem, table_cards
    from .games.personal_cards import OPTION, CardsProblem

    if OPTION not in game.option_names:
        if given is not None:
            raise UsageError(f"--cards is for christmas-game, not {game.id}")
        return {}
    try:
        _, cards = table_cards(given)
    except (FileProblem, CardsProblem) as problem:
        raise UsageError(str(problem)) from None
    return {OPTION: cards} if cards else {}


def players_for(game: Game, players: int | None) -> int:
    n = players if players is not None else min(max(4, game.min_players), game.max_players)
    if not game.min_players <= n <= game.max_players:
        raise UsageError(
            f"{game.id} is for {game.min_players}-{game.max_players} players, not {n}"
        )
    return n


def local_names(given: Sequence[str] | None, local: int) -> list[str]:
    """The names of the people at this terminal: those given, then the login name alone, or "Player 2"…"""
    names = list(given or [])
    if len(names) > local:
        raise UsageError(f"{len(names)} names for {local} player{'s' * (local != 1)} at this keyboard (see --local-players)")
    names += [default_name()] if local == 1 and not names else [f"Player {i + 1}" for i in range(len(names), local)]
    if len({name.casefold() for name in names}) != len(names):
        raise UsageError("players sharing a keyboard need different names")
    return names


def run_shared(args: argparse.Namespace, players: int, options: dict) -> int:
    """Several people at this keyboard, bots at the other seats."""
    import secrets

    from .simulate import with_bots
    from .tables.local import LocalTable
    from .ui.boards import local_players

    local = args.local_players
    limit = local_players(args.game.id)
    if local > limit:
        if limit == 1:
            raise UsageError(f"{args.game.id} is played by one person at a terminal")
        raise UsageError(f"at most {limit} people share a keyboard in {args.game.id}")
    if local > players:
        raise UsageError(f"--local-players {local} is more than the {players} seats")
    names = with_bots(local_names(args.name, local), players)
    seed = args.seed if args.seed is not None else secrets.randbelow(10**9)
    table = LocalTable(args.game, names, 0, humans=range(local), bot=args.bot, seed=seed, pace=args.pace,
                       options=options or None, keep=True)
    with starting():
        from .ui.app import XmasApp

        XmasApp(table=table, theme=getattr(args, "theme", None)).run()
    return 0


def run(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # (``xmas-tui`` alone opens the lobby: nothing to parse, and the parser, every verb's
    # arguments, is built only for a command line that has something in it)
    args = build_parser().parse_args(argv) if argv else argparse.Namespace(verb=None)
    if args.verb == "rules":
        import shutil

        from .rules_text import wrapped

        print(wrapped(args.game.describe_rules(), max(40, shutil.get_terminal_size().columns - 1)))
        return 0
    if args.verb == "simulate":
        from .simulate import simulate

        n = players_for(args.game, args.players)
        if args.network:
            return run_network_simulation(args, n)
        figures = simulate(args.game, args.games, n, args.seed, args.bot, options_for(args.game, n, args.option, args.cards),
                           levels=args.levels)
        if not args.json:
            print(
                f"{count(figures['games'], 'game')} of {args.game.title}, {n} players, {args.bot} bots: "
                f"{figures['games_per_second']} games/s, {figures['mean_actions']} actions a game"
            )
            print(f"wins by seat: {figures['wins_by_seat']}, shared wins: {figures['ties']}")
        print(json.dumps(figures) if args.json else "", end="\n" if args.json else "")
        return 0
    if args.verb == "verify":
        return run_verify(args)
    if args.verb == "replay":
        return run_replay(args)
    if args.verb == "serve":
        return run_serve(args)
    if getattr(args, "log", None) is not None:
        from .tables import audit

        problem = audit.log_path_problem(args.log)
        if problem is not None:
            raise UsageError(f"--log {args.log}: {problem}")
        audit.log_path = args.log
    if args.verb in ("host", "join"):
        return run_network(args)
    if args.verb == "watch":
        with starting():
            from .ui.app import run_app

            return run_app(join=dict(address=args.address, code=args.code, name="Big screen", discovery=args.discovery,
                                     game=args.game.id if args.game else None, watch=True),
                           theme=getattr(args, "theme", None))
    if args.verb == "play":
        n = players_for(args.game, args.players)
        options = options_for(args.game, n, args.option, args.cards)
        if args.local_players > 1:
            return run_shared(args, n, options)
        name = local_names(args.name, 1)[0]
        with starting():
            from .ui.app import run_app

            return run_app(game=args.game, players=n, seed=args.seed, name=name, bot=args.bot, pace=args.pace,
                           options=options, cards_file=args.cards, theme=getattr(args, "theme", None))  # fmt: skip
    with starting():  # (the lobby: xmas-tui with no verb)
        from .ui.app import run_app

        return run_app(theme=getattr(args, "theme", None))


def run_network(args: argparse.Namespace) -> int:
    import asyncio

    from .games import IllegalAction
    from .tables import headless
    from .tables.network import JoinError, SeveralTables, new_code

    if args.verb == "host":
        n = players_for(args.game, args.players)
        if args.bots >= n:
            raise UsageError(f"--bots {args.bots} leaves no seat for anyone else at a {n}-seat table")
        code = args.code or new_code()
        options = options_for(args.game, n, args.option, args.cards)
        if not args.headless:
            with starting():
                from .ui.app import run_app

                return run_app(host=dict(game=args.game, players=n, code=code, name=args.name, port=args.port,
                                         bot=args.bot, bots=args.bots, hold=args.hold, discovery=args.discovery,
                                         options=options, turn_time=args.turn_time, no_peek=args.no_peek),
                               cards_file=args.cards,
                               theme=getattr(args, "theme", None))
        try:
            outcome = asyncio.run(headless.headless_host(
                args.game, n, code=code, name=args.name, port=args.port, bot=args.bot, bots=args.bots,
                discovery=args.discovery, hold=args.hold, seed=args.seed, bind_host=args.bind, log=args.log,
                options=options, turn_time=args.turn_time, pace=args.pace, no_peek=args.no_peek,
                opened=lambda line: print(json.dumps(line), flush=True),
            ))  # fmt: skip
        except (IllegalAction, TimeoutError) as exc:
            print(plain(f"xmas-tui: {exc or 'the table did not fill and finish within an hour'}"), file=sys.stderr)
            return 1
        except OSError as exc:  # the port is taken, the address is not this machine's
            raise UsageError(f"cannot open the table: {exc.strerror or exc}") from None
        print(json.dumps(outcome))
        return 0
    if args.code is None:
        raise UsageError("join needs --code CODE (it is shown on the host's screen)")
    name = args.name or ("Player" if args.headless else default_name())
    if not args.headless:
        with starting():
            from .ui.app import run_app

            return run_app(join=dict(address=args.address, code=args.code, name=name, discovery=args.discovery,
                                     game=args.game.id if args.game else None), theme=getattr(args, "theme", None))
    try:
        outcome = asyncio.run(headless.headless_join(
            args.game.id if args.game else None, address=args.address, code=args.code, name=name,
            bot=args.bot, discovery=args.discovery, log=args.log, pace=args.pace,
        ))  # fmt: skip
    except SeveralTables as exc:  # the player must say which: --address
        raise UsageError(str(exc)) from None
    except (JoinError, IllegalAction, TimeoutError) as exc:
        print(plain(f"xmas-tui: {exc}", lines=False), file=sys.stderr)  # (a host's refusal: its words)
        return 1
    print(json.dumps(outcome))
    return 0


def run_serve(args: argparse.Namespace) -> int:
    """Serve the lobby to guests over SSH or to browsers until Ctrl+C."""
    import asyncio

    from .serve import ServeError
    from .serve.guests import Guests

    guests = Guests(most=args.max_guests, idle=args.idle * 60.0 or None)

    def say(line: str) -> None:
        print(plain(line), flush=True)  # (a guest's name is theirs to choose)

    try:
        if args.way == "ssh":
            from .serve import ssh

            asyncio.run(ssh.serve(args.bind, args.port, password=args.password, guests=guests, say=say))
        else:
            from .serve import web

            asyncio.run(web.serve(args.bind, args.port, guests=guests, say=say))
    except ServeError as exc:
        raise UsageError(str(exc)) from None
    return 0


def run_network_simulation(args: argparse.Namespace, players: int) -> int:
    """One whole networked table in virtual time; its figures as a line (and JSON)."""
    from .tables.simulation import simulate_network

    if args.adversary is not None:
        return run_adversary_simulation(args, players)
    figures = simulate_network(args.game, players, spectators=args.spectators, loss=args.loss, pace=args.pace,
                               seed=args.seed, bot=args.bot, options=options_for(args.game, players, args.option, args.cards),
                               no_peek=args.no_peek)
    if not args.json:
        print(f"{args.game.title}, {count(players, 'player')} and {count(args.spectators, 'spectator')} at {args.loss:.0%} loss: "
              f"{figures['virtual_seconds']:.0f} virtual seconds in {figures['seconds']:.2f} s "
              f"({figures['speed']}x), digests equal: {figures['digests_equal']}, audits ok: {figures['audits_ok']}")
    print(json.dumps(figures) if args.json else "", end="\n" if args.json else "")
    return 0 if figures["digests_equal"] and figures["audits_ok"] else 1


def run_adversary_simulation(args: argparse.Namespace, players: int) -> int:
    """One networked table in virtual time with one bad program: what the honest peers made of it."""
    from .tables.adversary import run_adversary

    strategy, seat = args.adversary
    if players < 3:
        raise UsageError("an adversary needs a table of three or more players")
    verdict = run_adversary(args.game, players, strategy, seed=args.seed, seat=seat, pace=args.pace)
    if not args.json:
        how = ("hung" if verdict["hung"] else "spun" if verdict["spun"] else "finished wrong" if verdict["wrong"]
               else f"{verdict['finished']} finished, {verdict['stopped']} stopped cleanly")
        print(f"{args.game.title}, {players} players, {verdict['adversary']} plays {strategy}: {how}; "
              f"named on every honest screen: {verdict['named']} ({verdict['virtual_seconds']:.0f} virtual seconds)")
    print(json.dumps(verdict) if args.json else "", end="\n" if args.json else "")
    return 0 if not (verdict["hung"] or verdict["spun"] or verdict["wrong"]) and verdict["named"] else 1


def run_verify(args: argparse.Namespace) -> int:
    """Re-run the audit of a log: exit 0 if every check passed, 1 with the failures (or the
    log was changed), 2 if the file is not a game log that can be read at all."""
    from .tables.audit import FailedAudit, LogError, verify_file

    try:
        verdict = verify_file(args.logfile)
    except LogError as exc:
        return refuse_log(exc)
    if args.json:
        print(json.dumps(verdict))
    else:
        # (a log's alarms, names and notes are anyone's words: nothing in them reaches the terminal raw)
        print(plain(verdict["summary"]) if verdict["ok"] else plain(f"Fair play: FAILED ({verdict['what']}):"))
        for failure in verdict["failures"]:
            print(plain(f"  - {failure}", lines=False))
    if not verdict["ok"]:
        return refuse_log(FailedAudit(args.logfile, verdict))
    return 0


def run_replay(args: argparse.Namespace) -> int:
    """Step through a finished game's log in the app; a log ``verify`` would refuse is refused
    here with its line (exit 1, or 2 for a file that is no game log), before the app starts."""
    from .tables.audit import LogError
    from .tables.replay import Replay

    try:
        replay = Replay.open(args.logfile)
    except LogError as exc:
        return refuse_log(exc)
    if args.seat is not None and args.seat > len(replay.players):
        raise UsageError(f"--seat {args.seat}: the game had {len(replay.players)} seats")
    with starting():
        from .ui.app import XmasApp

        XmasApp(theme=getattr(args, "theme", None), replay=(replay, None if args.seat is None else args.seat - 1)).run()
    return 0


def refuse_log(problem: Exception) -> int:
    """A log refused, in one line (``verify`` and ``replay`` alike): exit 1; a file that is not
    a game log that can be read at all is a usage error (exit 2)."""
    from .tables.audit import UnreadableLog, refusal

    if isinstance(problem, UnreadableLog):
        raise UsageError(str(problem)) from None
    print(plain(f"xmas-tui: {refusal(problem)}", lines=False), file=sys.stderr)
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return run(argv)
    except UsageError as exc:  # one line, or one line per problem (a cards file's)
        for line in str(exc).splitlines():
            print(plain(f"xmas-tui: {line}", lines=False), file=sys.stderr)  # (it may quote a file)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `xmas-tui rules GAME | head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing more to flush at exit
        return 0


if __name__ == "__main__":
    sys.exit(main())
