"""A door flood for tests and benchmarks: forged INITs from many loopback addresses.

Owns: one UDP socket per flooding source, bound to 127.0.0.2, 127.0.0.3, … (all
of 127.0.0.0/8 is loopback on Linux), a pool of forged INITs (any joiner id, any
SPAKE2 element, the host's id, as a flooder that heard the table's announcement
makes them), and the pacing that sends them at a given rate. The sockets never
read: the RETRYs sent back go unanswered, as they would to forged source
addresses.

Run standalone (the join benchmark runs it as its own process)::

    python -m netcode.tools.flood --target 127.0.0.1:4000 --host-id 2 --rate 10000

It prints ``flooding`` once its sockets are bound, floods until its standard
input closes, then prints one JSON line: INITs sent, seconds, the rate reached.

Must not touch: any address outside 127.0.0.0/8, its own or the target's (both
are checked, so nothing here can ever spray a real network).
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import random
import socket
import sys
import threading
import time

from netcode.envelope import MIN_INIT, pack_init

#: forged INITs made up front and sent in turn (the host keeps nothing of any of them)
POOL = 1024


def _loopback(address: tuple[str, int]) -> tuple[str, int]:
    if ipaddress.ip_address(address[0]) not in ipaddress.ip_network("127.0.0.0/8"):
        raise ValueError(f"{address[0]} is not in 127.0.0.0/8; the flood refuses it")
    return address


class Flood:
    """`sources` sockets on 127.0.0.2 onwards, each sending forged INITs to `target`."""

    def __init__(self, target: tuple[str, int], host_id: int, sources: int = 100, seed: int = 1,
                 size: int = MIN_INIT) -> None:  # fmt: skip
        if not 1 <= sources <= 250:
            raise ValueError("between 1 and 250 sources (127.0.0.2 to 127.0.0.251)")
        self.target = _loopback(target)
        rng = random.Random(seed)
        self.pool = [
            pack_init(rng.getrandbits(63), host_id, b"A" + rng.randbytes(32), size)
            for _ in range(POOL)
        ]
        self.sockets: list[socket.socket] = []
        try:
            for i in range(sources):
                sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                self.sockets.append(sock)
                sock.bind(_loopback((f"127.0.0.{2 + i}", 0)))
                sock.setblocking(False)
        except OSError:
            self.close()
            raise
        #: INITs sent, and those of them the kernel refused (a full send buffer)
        self.sent = 0
        self.refused = 0

    def send(self, count: int) -> None:
        """The next `count` INITs, one source after another (a full buffer skips one)."""
        sockets, pool, target = self.sockets, self.pool, self.target
        for _ in range(count):
            n = self.sent
            try:
                sockets[n % len(sockets)].sendto(pool[n % POOL], target)
            except (BlockingIOError, InterruptedError):
                self.refused += 1
            self.sent = n + 1

    def run(self, rate: float, stop: threading.Event | None = None, seconds: float = float("inf")) -> None:
        """Send `rate` INITs a second, in bursts a millisecond apart, until `stop` or `seconds`."""
        started = time.monotonic()
        while not (stop is not None and stop.is_set()):
            now = time.monotonic()
            if now - started >= seconds:
                return
            behind = int((now - started) * rate) - self.sent
            if behind > 0:
                self.send(min(behind, max(1, int(rate / 100))))
            else:
                time.sleep(0.001)

    async def run_async(self, rate: float, stop: asyncio.Event) -> None:
        """`run` on an event loop shared with others: a burst each 5 ms, then the loop's turn."""
        started = time.monotonic()
        while not stop.is_set():
            behind = int((time.monotonic() - started) * rate) - self.sent
            if behind > 0:
                self.send(behind)
            await asyncio.sleep(0.005)

    def close(self) -> None:
        for sock in self.sockets:
            sock.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m netcode.tools.flood", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--target", required=True, help="HOST:PORT of the table, on loopback")
    parser.add_argument("--host-id", type=int, required=True, help="the table's peer id")
    parser.add_argument("--rate", type=float, default=10_000.0, help="INITs a second in all")
    parser.add_argument("--sources", type=int, default=100, help="source addresses")
    args = parser.parse_args(argv)
    host, _, port = args.target.rpartition(":")
    try:
        flood = Flood((host, int(port)), args.host_id, args.sources)
    except (OSError, ValueError) as exc:
        print(f"flood: {exc}", file=sys.stderr)
        return 2
    stop = threading.Event()

    def wait_for_stdin() -> None:
        sys.stdin.buffer.read()
        stop.set()

    threading.Thread(target=wait_for_stdin, daemon=True).start()
    print("flooding", flush=True)
    started = time.monotonic()
    try:
        flood.run(args.rate, stop)
    finally:
        flood.close()
    seconds = time.monotonic() - started
    sent = flood.sent - flood.refused
    print(json.dumps({"sent": sent, "refused": flood.refused, "seconds": round(seconds, 3),
                      "rate": round(sent / seconds) if seconds else 0}), flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
