"""The end-of-game audit, and the game log every peer can keep and re-check.

Owns: replaying a finished game from its revealed seed and public action log
with the engine, checking every commitment, every opening, the last view and
the result (``audit_log``); the game log of a seat (``seat_log``); the game
log file (``write_log``, ``read_log``, ``verify_file``); and the data
directory where logs, kept games and seat keys live (``data_dir``).

The game log (JSON, UTF-8, one object; bytes are lowercase hex)::

    {
      "format": "xmas-tui/game-log", "version": 1,
      "game": "chip-n-dale",        # the game id
      "table": "…",                 # the table id (hex)
      "players": ["Ann", …],        # names in seat order
      "seat": 1,                    # whose log this is (null: a spectator)
      "seed_commit": "…",           # H(seed-commit, table, S), published before the deal
      "secret": "…",                # S, revealed at the end
      "nonce_commits": ["…"|null],  # per seat, as committed in hello
      "nonces": ["…"|null],         # per seat, as used in the seed (null: left out)
      "my_nonce": "…"|null,         # the nonce this peer chose
      "notes": ["seat 3 gave no nonce in time; the seed is made without it"],
      "actions": [[seat, ["flip", 3]], …],   # every applied action, in order
      "commitments": [[handle, "…"], …],     # every card commitment received
      "openings": [[handle, face, "salt"], …],  # the faces opened to this peer
      "last_view": {…},             # this peer's last view (View wire form)
      "result": {…},                # the result the host announced
      "alarms": ["…"],              # problems seen on receipt during the game
      "handovers": [{"term": 2, "host": "Noel", "after_actions": 17, "why": "…"}],
                                    # every change of host this peer saw (only if any)
      "term": 1,                    # the term of the host that ended the game ...
      "host_key": "…",              # ... its Ed25519 key, as its welcome announced it ...
      "signature": "…",             # ... and its signature over secret, nonces, notes,
                                    # actions and result (netcode.fairplay.final_message)
      "options": {…},               # only if the game was set up with options
      "sha256": "…"                 # SHA-256 of the canonical JSON of the rest
    }

A game against bots (``xmas-tui play``) keeps the same format with
``"rng_seed"`` (the ``--seed`` it was dealt from) and no nonces: there is
nobody to be fair to, but the log and its audit work alike. Every kind of
table builds its log in one place (``seat_log``), from the session of the
seat whose log it is.

The canonical JSON is ``json.dumps(rest, sort_keys=True, separators=(",", ":"),
ensure_ascii=False)`` in UTF-8. The checksum makes an accidental or careless
edit evident; someone who edits the log and recomputes it gets past the
checksum, but not the audit: every commitment is still checked against the
revealed secret, and the replay against the result.

Must not touch: sockets, Textual. (``netcode.fairplay`` has the hashing.)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from netcode.fairplay import (
    card_commitment,
    card_salt,
    derive_seed,
    final_signed,
    nonce_commitment,
    seed_commitment,
)
from netcode.session.host.mental import SEALED
from netcode.session.seat import SeatSession
from xmas_tui import files
from xmas_tui.games import ActionError, Game, Result, Rng, get_game
from xmas_tui.games.cards import ClaimBroken, FaceHidden
from xmas_tui.games.engine import plain

from .rules import made_since

FORMAT = "xmas-tui/game-log"
VERSION = 1
MAX_LISTED = 8


class LogError(Exception):
    """A log file that cannot be read or was changed after it was written."""


class UnreadableLog(LogError):
    """A file that is not a game log this program can read (too big, too deep, malformed)."""


class FailedAudit(LogError):
    """A log that reads, but fails its audit (``verdict``): nothing to replay or trust."""

    def __init__(self, path: str | Path, verdict: Mapping[str, Any]) -> None:
        super().__init__(f"{path} fails its audit: {verdict['failures'][0]}")
        self.verdict = verdict


def refusal(problem: Exception) -> str:
    """The one line that refuses a log: ``xmas-tui verify``, ``xmas-tui replay`` and the
    screens say it alike."""
    return str(problem) if isinstance(problem, (UnreadableLog, FailedAudit)) else f"refused: {problem}"


# ---------------------------------------------------------------- helpers


def _hex(value: bytes | None) -> str | None:
    return None if value is None else bytes(value).hex()


def _unhex(value: Any, what: str) -> bytes | None:
    if value is None:
        return None
    try:
        return bytes.fromhex(value)
    except (TypeError, ValueError):
        raise LogError(f"{what} is not hex") from None


def normal(value: Any) -> Any:
    """Plain data as JSON would give it back (tuples become lists, keys strings)."""
    return json.loads(json.dumps(plain(value)))


def canonical(log: Mapping[str, Any]) -> bytes:
    rest = {k: v for k, v in log.items() if k != "sha256"}
    return json.dumps(rest, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


# ---------------------------------------------------------------- the audit


def audit_log(log: Mapping[str, Any]) -> dict:
    """Replay a game log and check everything in it. Returns the verdict.

    ``{"ok": bool, "checked": {...counts...}, "failures": [...], "summary": "..."}``
    """
    failures: list[str] = list(log.get("alarms") or [])
    checked = {"commitments": 0, "openings": 0, "seed": 0, "actions": 0, "random_draws": 0, "view": 0, "result": 0}
    if log.get("no_peek") is not None:
        checked = {"actions": 0, "faces": 0, "answers": 0, "random_draws": 0, "result": 0}
    try:
        failures += _audit_no_peek(log, checked) if log.get("no_peek") is not None else _audit(log, checked)
        failures += _handovers(log)
        failures += _signature(log)
    except (LogError, KeyError, TypeError, ValueError) as exc:
        failures.append(f"the log cannot be audited: {exc}")
    return verdict(checked, failures)


def verdict(checked: Mapping[str, int], failures: Sequence[str]) -> dict:
    listed = list(failures[:MAX_LISTED])
    if len(failures) > MAX_LISTED:
        listed.append(f"… and {len(failures) - MAX_LISTED} more")
    def n(key: str, what: str, many: str | None = None) -> str:  # ("1 public draw", "2 public draws")
        count = checked.get(key, 0)
        return f"{count} {what if count == 1 else many or what + 's'}"

    if "answers" in checked:  # a no-peek deal: its proofs were checked as they came
        what = (
            f"replayed {n('actions', 'action')} with {n('faces', 'opened card')}, "
            + n("answers", "player's answer", "players' answers") + f" and {n('random_draws', 'public draw')}"
            + (", the result" if checked.get("result") else "")
            + (f"; {n('unchecked', 'answer')} about cards that never opened (the table closed early) taken as given"
               if checked.get("unchecked") else "")
        )
    else:
        what = (
            f"checked {n('commitments', 'commitment')}, {n('openings', 'opening')}, "
            f"{n('seed', 'shuffle seed')}, {n('actions', 'action')} with {n('random_draws', 'random draw')}"
            + (", the final view" if checked.get("view") else "")
            + (", the result" if checked.get("result") else "")
        )
    ok = not failures
    summary = f"Fair play: OK ({what})." if ok else f"Fair play: FAILED ({what}): " + "; ".join(listed)
    return {"ok": ok, "checked": dict(checked), "what": what, "failures": listed, "summary": summary}


def _signature(log: Mapping[str, Any]) -> list[str]:
    """The host's signature over the end of the game, as the log carries it (a log written
    before hosts signed has none)."""
    if log.get("signature") is None:
        return []
    key = _unhex(log.get("host_key"), "the host's key") or b""
    signature = _unhex(log["signature"], "the host's signature") or b""
    fair = {
        "secret": _unhex(log.get("secret"), "the secret"),
        "nonces": [_unhex(n, "a nonce") for n in log.get("nonces") or []],
        "notes": list(log.get("notes") or []),
        "actions": [[seat, _record_action(action)] for seat, action in log.get("actions") or []],
    }
    if not final_signed(key, signature, _unhex(log["table"], "the table id") or b"", int(log.get("term") or 1),
                        fair, log.get("result")):
        return ["the host's signature over the end of the game does not hold for this log"]
    return []


def _handovers(log: Mapping[str, Any]) -> list[str]:
    """Every change of host the log records comes in a later term, within the game's record."""
    term, after = 1, 0
    for handover in log.get("handovers") or []:
        if handover["term"] <= term or not after <= handover["after_actions"] <= len(log["actions"]):
            return [f"the log's handover to {handover['host']!r} in term {handover['term']} is out of order"]
        term, after = handover["term"], handover["after_actions"]
    return []


def dealt(log: Mapping[str, Any], failures: list[str]) -> tuple[Game, Any, Rng] | None:
    """The game of a log, dealt again from its revealed seed: (game, state, rng); or None, with
    why in ``failures``, when the seed cannot be trusted (the audit and the replay start here)."""
    game: Game = get_game(log["game"])
    table = _unhex(log["table"], "the table id") or b""
    secret = _unhex(log.get("secret"), "the secret")
    seed_commit = _unhex(log.get("seed_commit"), "the seed commitment")
    if secret is None:
        failures.append("the host never revealed its secret")
        return None
    # 1. the secret is the one committed before the deal
    if seed_commit is None or seed_commitment(table, secret) != seed_commit:
        failures.append("the host's revealed secret does not match the commitment it published before the deal")
        return None
    # 2. every nonce used matches its commitment; mine is in where it belongs
    nonces = [_unhex(n, "a nonce") for n in log["nonces"]]
    commits = [_unhex(c, "a nonce commitment") for c in log.get("nonce_commits") or []]
    for seat, nonce in enumerate(nonces):
        commit = commits[seat] if seat < len(commits) else None
        if nonce is not None and (commit is None or nonce_commitment(table, nonce) != commit):
            failures.append(f"the nonce used for seat {seat + 1} does not match its commitment")
    mine = _unhex(log.get("my_nonce"), "my nonce")
    seat = log.get("seat")
    if mine is not None and seat is not None and seat < len(nonces) and nonces[seat] not in (None, mine):
        failures.append("the seed was made with a nonce for my seat that is not mine")
    if log.get("rng_seed") is not None:
        if any(n is not None for n in nonces):
            failures.append("the log names a seed of its own, but players gave nonces: the seed must come from them")
            return None
        rng = Rng(log["rng_seed"])  # a local game: dealt from the seed the player chose
    else:
        rng = Rng(derive_seed(secret, nonces))
    return game, game.setup(log.get("options") or {}, list(log["players"]), rng), rng


def commitment_problem(log: Mapping[str, Any], handle: int, face: str | None, commit: bytes | None) -> str | None:
    """What is wrong with the commitment received for card ``handle``, whose face the replayed
    game says is ``face`` (None: it never made it), or None."""
    if face is None:
        return f"card #{handle} was committed but the replayed game never made it"
    table = _unhex(log["table"], "the table id") or b""
    secret = _unhex(log["secret"], "the secret") or b""
    if commit is None:
        return f"card #{handle} was never committed"
    if card_commitment(get_game(log["game"]).id, table, handle, face, card_salt(secret, handle)) != commit:
        return f"card #{handle}: its commitment does not match the replayed deal (it should be {face!r})"
    return None


def opening_problem(log: Mapping[str, Any], handle: int, face: str, salt: str, replayed: str | None) -> str | None:
    """What is wrong with an opening the log's peer received (card ``handle`` shown as ``face``
    with ``salt``), the replayed game saying the face is ``replayed``; or None."""
    secret = _unhex(log["secret"], "the secret") or b""
    if _unhex(salt, "a salt") != card_salt(secret, handle):
        return f"card #{handle}: the salt I was given is not the one the secret makes"
    if replayed != face:
        return f"card #{handle} was shown to me as {face!r}, but the replayed game says {replayed!r}"
    return None


def _audit(log: Mapping[str, Any], checked: dict[str, int]) -> list[str]:
    failures: list[str] = []
    deal = dealt(log, failures)
    if deal is None:
        return failures
    game, state, rng = deal
    seat = log.get("seat")
    checked["seed"] = 1
    # 3. replay the public log with the engine
    faces: dict[int, str] = {}
    made, upto = made_since(state.cards, 1)
    faces.update(made)
    for i, (actor, wire) in enumerate(log["actions"]):
        try:
            game.apply(state, actor, game.parse_action(wire), rng)
        except ActionError as refused:
            failures.append(f"action {i + 1} (seat {actor + 1}: {wire}) is refused by the rules: {refused}")
            break
        checked["actions"] += 1
        made, upto = made_since(state.cards, upto)
        faces.update(made)
    checked["random_draws"] = rng.draws
    # 4. every commitment received is the one the revealed deal makes
    received = {int(h): _unhex(c, "a commitment") for h, c in log["commitments"]}
    for handle, commit in sorted(received.items()):
        checked["commitments"] += 1
        problem = commitment_problem(log, handle, faces.get(handle), commit)
        if problem is not None:
            failures.append(problem)
    missing = sorted(set(faces) - set(received))
    if missing:
        failures.append(f"{len(missing)} card(s) the game made were never committed (#{', #'.join(map(str, missing[:5]))})")
    # 5. every opening received
    for handle, face, salt in log["openings"]:
        checked["openings"] += 1
        problem = opening_problem(log, handle, face, salt, faces.get(handle))
        if problem is not None:
            failures.append(problem)
    # 6. my last view and the result
    if log.get("last_view") is not None and not failures:
        checked["view"] = 1
        replayed = normal(game.view(state, seat).to_wire())
        if normal(log["last_view"]) != replayed:
            failures.append("my last view differs from the replayed game's")
    failures += _result_problems(log, game, state, checked)
    return failures


def _closed(log: Mapping[str, Any]) -> bool:
    """Whether the log's game was closed before its end (its result: the scores as they stood)."""
    return isinstance(log.get("result"), Mapping) and bool(log["result"].get("closed"))


def _result_problems(log: Mapping[str, Any], game: Game, state: Any, checked: dict[str, int]) -> list[str]:
    """The replayed game's result against the one the log announces."""
    result = game.closed_result(state) if _closed(log) else game.result(state)  # (closed: the scores as they stood)
    checked["result"] = 1
    if result is None:
        return ["the replayed game has not ended"]
    if log.get("result") is None or normal(result.to_wire()) != normal(log["result"]):
        claimed = Result.from_wire(log["result"]) if log.get("result") else None
        return [f"the announced result {claimed} differs from the replayed {result}"]
    return []


def _audit_no_peek(log: Mapping[str, Any], checked: dict[str, int]) -> list[str]:
    """A no-peek deal's log: its every card was proved as it opened (the shares and proofs
    are not kept); this replays the game from the opened cards, the players' answers and
    the public draws, holding every answer to the cards, and checks the result."""
    from .nopeek.replica import replay_opened

    record = log["no_peek"]
    game = get_game(log["game"])
    players = list(log["players"])
    faces = {int(h): str(f) for h, f in record["faces"].items()}
    claims = {(int(m), int(a)): value for m, a, value in record["claims"]}
    draws = {int(r): _unhex(v, "a public draw") or b"" for r, v in record["draws"].items()}
    moves = [(int(seat), game.parse_action(wire)) for seat, wire in record["moves"]]
    checked["faces"], checked["answers"], checked["random_draws"] = len(faces), len(claims), len(draws)
    options = dict(log.get("options") or game.options_from(len(players)))
    try:
        state, unchecked = replay_opened(game, options, players, faces, claims, draws, moves, closed=_closed(log))
    except ClaimBroken as broken:
        return [f"{players[broken.seat]}'s answer ({broken.question}) is false, as the opened cards show"]
    except FaceHidden as hidden:
        return [f"the replay needs card {hidden.handle}, which the log does not open"]
    except ActionError as refused:
        return [f"an action is refused by the rules: {refused}"]
    checked["actions"] = len(moves)
    if unchecked:
        checked["unchecked"] = unchecked
    return _result_problems(log, game, state, checked)


def _no_peek_record(session: SeatSession) -> dict[str, Any] | None:
    """What a no-peek seat's program kept for the log: every opened face, every answer, every
    public draw and every move made, in order."""
    program = session.mental
    machine = getattr(program, "machine", None)
    if not session.no_peek or machine is None:
        return None
    replica = machine.replica
    return {
        "faces": {str(h): f for h, f in sorted(replica.book.public.items())},
        "claims": [[m, a, normal(v)] for (m, a), v in sorted(replica.book.claims.items())],
        "draws": {str(r): _hex(v) for r, v in sorted(replica.draws.items())},
        "moves": [[seat, normal(action.to_wire())] for seat, action in machine.moves],
        "audited": machine.audited, "stopped": machine.stopped,
    }


def _record_action(action: Any) -> Any:
    """An action of the record as the host signed it (a no-peek choice's digest as bytes)."""
    if isinstance(action, list) and len(action) == 2 and action[0] == SEALED and isinstance(action[1], str):
        return [SEALED, _unhex(action[1], "a choice's digest")]
    return action


def _json_action(action: Any) -> Any:
    """An action of the record as JSON keeps it (a no-peek choice's digest as hex)."""
    if isinstance(action, bytes):
        return action.hex()
    if isinstance(action, list):
        return [_json_action(a) for a in action]
    return action


# ---------------------------------------------------------------- building logs


def seat_log(session: SeatSession) -> dict:
    """The game log of one seat (or a spectator), from its session after the final message.

    Every kind of table makes its log here: a game against bots, a networked host's own
    seat, a joiner and a spectator alike."""
    final, verifier = session.final, session.verifier
    assert final is not None, "the game is not over"
    fair = final.fair
    seat = session.seat
    commits = fair.get("nonce_commits") or []
    # my nonce went into the seed only if the commitment the host kept for my seat is mine
    # (a player who rejoined from elsewhere may hold another)
    mine = seat is not None and seat < len(commits) and commits[seat] == verifier.nonce_commit
    return {
        "format": FORMAT, "version": VERSION,
        "game": verifier.game, "table": _hex(verifier.table_id),
        "players": list((session.view or final.public)["public"]["players"]),
        "seat": seat,
        "seed_commit": _hex(verifier.seed_commit), "secret": _hex(fair.get("secret")),
        "nonce_commits": [_hex(c) for c in commits],
        "nonces": [_hex(n) for n in fair.get("nonces", [])],
        "my_nonce": _hex(verifier.nonce) if mine else None,
        "notes": list(fair.get("notes", [])),
        "actions": [_json_action(list(a)) for a in fair.get("actions", [])],
        "commitments": [[h, _hex(c)] for h, c in sorted(verifier.commitments.items())],
        "openings": [[h, face, _hex(salt)] for h, (face, salt) in sorted(verifier.openings.items())],
        "last_view": session.view,
        "result": final.result,
        "alarms": list(verifier.alarms),
        **({"rng_seed": fair["rng_seed"]} if fair.get("rng_seed") is not None else {}),
        **({"options": normal(fair["options"])} if fair.get("options") else {}),
        **({"handovers": [{"term": term, "host": host, "after_actions": count, "why": why}
                          for term, host, count, why in session.handovers]} if session.handovers else {}),
        "term": session.term, "host_key": _hex(session.keys.get(session.term)), "signature": _hex(final.signature),
        **({"no_peek": record} if (record := _no_peek_record(session)) is not None else {}),
    }  # fmt: skip


def audit_seat(session: SeatSession) -> dict:
    """The verdict of one seat's session, with its log (``"log"``) for writing."""
    log = seat_log(session)
    result = audit_log(log)
    result["log"] = log
    return result


# ---------------------------------------------------------------- files


def data_dir() -> Path:
    return files.app_data_dir() / "games"


def default_log_path(log: Mapping[str, Any]) -> Path:
    """``<data dir>/<game>-<table id>-seat<N>.json`` (``-2``, ``-3``… if taken)."""
    seat = "spectator" if log.get("seat") is None else f"seat{log['seat'] + 1}"
    stem = f"{log['game']}-{log['table']}-{seat}"
    path = data_dir() / f"{stem}.json"
    n = 1
    while path.exists():
        n += 1
        path = data_dir() / f"{stem}-{n}.json"
    return path


def with_checksum(log: Mapping[str, Any]) -> dict:
    """The log with its trailing checksum."""
    rest = {k: v for k, v in log.items() if k != "sha256"}
    return {**rest, "sha256": hashlib.sha256(canonical(rest)).hexdigest()}


def write_log(log: Mapping[str, Any], path: str | Path | None = None) -> Path:
    """Write a log with its checksum (to the default place if no path); returns where."""
    target = Path(path) if path is not None else default_log_path(log)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(with_checksum(log), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return target


def read_log(path: str | Path) -> dict:
    """A log file, checksum verified; ``LogError`` (one line) if unreadable, changed, or not
    a game log: size, nesting and every field the audit reads are checked first
    (``xmas_tui.files``)."""
    try:
        log, text = files.load_json(path, files.LOG_BYTES, "a game log")
        if not isinstance(log, dict) or log.get("format") != FORMAT:
            raise files.FileProblem(f"{path} is not an xmas-tui game log")
        if log.get("version") != VERSION:
            raise files.FileProblem(f"{path} is a game log of version {files.kind_of(log.get('version'))}, this program reads {VERSION}")
        files.conform(log, files.GAME_LOG, Path(path).name)
    except files.FileProblem as problem:
        raise UnreadableLog(str(problem)) from None
    if log["sha256"] != hashlib.sha256(canonical(log)).hexdigest():
        raise LogError(f"{path}: the log was changed after it was written (its sha256 does not match)")
    # a byte changed in the layout (not the content) must be refused too
    if text != json.dumps(log, indent=1, ensure_ascii=False) + "\n":
        raise LogError(f"{path}: the log was changed after it was written (it is not as it was written)")
    return log


#: Where ``finish`` writes logs: ``None`` for the default place (``--log PATH`` sets it).
log_path: str | None = None


def log_path_problem(path: str | Path) -> str | None:
    """Why a game log could not be written to ``path`` (checked before a game, so that a bad
    ``--log`` costs nothing), or None. Tries it: makes the folder if it is missing, as writing
    would, and opens the file (a new one is removed again; an old one is left as it was)."""
    target = Path(path)
    if target.is_dir():
        return "is a folder, not a file"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        existed = target.exists()
        with open(target, "a", encoding="utf-8"):
            pass
        if not existed:
            target.unlink()
    except OSError as exc:
        return f"cannot be written ({exc.strerror or exc})"
    return None


def finish(log: Mapping[str, Any]) -> dict:
    """Audit a finished game and write its log; the verdict, with ``"path"`` (or ``"log_error"``)."""
    verdict = audit_log(log)
    try:
        verdict["path"] = str(write_log(log, log_path))
    except OSError as exc:
        verdict["log_error"] = f"the game log could not be written: {exc.strerror or exc}"
    return verdict


def verify_file(path: str | Path) -> dict:
    """Read a log and re-run its audit; raises ``LogError`` for a changed or unreadable file."""
    return audit_log(read_log(path))


def audited_file(path: str | Path) -> tuple[dict, dict]:
    """A log that passes its audit, and the verdict; ``LogError`` for a changed or unreadable
    file, ``FailedAudit`` for one that fails its audit."""
    log = read_log(path)
    verdict = audit_log(log)
    if not verdict["ok"]:
        raise FailedAudit(path, verdict)
    return log, verdict
