"""The sans-IO transport: a reliable ordered channel plus unreliable messages.

Owns: per-peer protocol state (`Connection`) and the multiplexer that serves
many peers on one socket (`Endpoint`): the join handshake and the keys it
agrees, packet sequence numbers and acks, retransmission, redundancy,
fragmentation, reordering, heartbeats, round-trip estimates, silence
detection, and the events handed to the application.

Must not touch: sockets, clocks, asyncio, games or the UI. Every method that
needs the time takes ``now`` (seconds, any monotonic origin); callers feed in
datagrams and timer ticks and take out datagrams and events, exactly like
aioquic's ``QuicConnection`` or h11's ``Connection``. After any call, a caller
should call `datagrams_to_send` and re-arm its timer from `next_timer`.

How it works, in short:

* A peer joins by proving it knows the join code, and has the host prove it
  too, with SPAKE2 (see `handshake`): nothing on the wire lets anyone test a
  guess offline, each guess costs one online attempt, and failed attempts are
  counted and slowed per source address and per table (`admission`). Before
  any of that, a joiner proves it receives at its address by returning the
  cookie of the host's RETRY (`cookie`), so forged floods hold nothing. Each
  pair of peers then holds its own two keys, one per direction, and every
  datagram between them is encrypted and authenticated (ChaCha20-Poly1305,
  nonce from the packet number). In the clear: a type byte, the sender's id,
  the packet number. One peer's keys open nobody else's traffic, and a
  datagram replayed, reflected or sent on to another peer is refused.
* Every datagram has a fresh packet sequence number and carries the highest
  packet number received from the peer plus a 64-bit bitfield of the ones
  before it, and how long that newest packet waited for its ack. A packet
  that brings new reliable data is acked by whatever goes out within
  `Config.max_ack_delay`, or by an ack of its own then (at once for a
  heartbeat, a second such packet, or one that arrived out of order); the
  sender subtracts the wait from its round-trip sample. So a burst of work
  that answers nothing costs one datagram each way, not two, and the sender
  is not woken in the middle of it. A packet of nothing but known copies is
  acked by whatever goes out next, so copies cannot ping-pong.
* Reliable messages are cut into units (one per message, or one per fragment
  of a message above about 1.1 kB) with consecutive unit ids. A unit is done
  when any packet that carried it is acked. A packet is declared lost once a
  later packet was acked and it has been out longer than that round trip plus
  a reorder window (RACK-style fast retransmit; the window grows only when a
  "loss" turns out to have been reordering). Every unit also has its own
  RFC 6298 timeout (30 ms floor, 1.5x backoff per timeout of that unit).
* Redundancy, for small units: while unacked, a unit rides in later datagrams
  that go out anyway, and is copied on a timer (every 0.4 srtt) if nothing
  goes out, up to `Config.redundancy` extra copies; copies that do not fit get
  one extra datagram per flush. One lost datagram rarely costs a round trip.
* Acks that arrive are applied after any reply is built, so acknowledging our
  own traffic never delays delivery or an answer.
* The receiver keeps a bounded reorder buffer keyed by unit id, delivers in
  order exactly once, and reassembles fragments. Events go to one bounded
  queue; when it is full, units wait in the reorder buffer and, once that is
  full, are refused unacked, so the sender backs off instead of losing data.
* Intake is defensive: size and type, the replay window over packet numbers,
  then authentication and decryption, then strict decoding (see
  `netcode.envelope`), all before any state changes. A peer's return address
  moves only when an authentic datagram newer than any seen comes from
  elsewhere. Refusals are counted by reason in ``drops`` and never raise.

Where each part lives (one module per concern; every name used elsewhere is
re-exported here, so ``from netcode.channel import Endpoint`` is the way in):

* `config`: `Config`, the tunables;
* `events`: the events handed out and the exceptions a send raises;
* `handshake`: SPAKE2 and the key schedule (`Initiator`, `Responder`);
* `joining`: the joiner's side of the handshake on its connection (`Joining`);
* `cookie`: the host's stateless retry cookies (`Cookies`);
* `admission`: the host's side: cookies checked, attempts, caps, failures,
  rate limits (`Admission`);
* `recovery`: round-trip estimation and loss recovery (`LossRecovery`);
* `sending`: queues, fragmentation, packing and sealing datagrams (`Sending`);
* `receiving`: intake, the replay window, reassembly, delivery (`Receiving`);
* `connection`: one peer (`Connection`, made of the four parts above);
* `endpoint`: many peers on one socket (`Endpoint`).

A host and a joiner, in short::

    host = Endpoint(join_code, table_id)                    # answers joiners
    joiner = Endpoint(join_code, table_id, accept_unknown=False)
    joiner.connect(host.local_id, host_address, now)        # the handshake starts
    joiner.send_reliable(host.local_id, {"hello": 1})       # waits for the keys
"""

from netcode.channel.admission import Admission, source_of
from netcode.channel.config import Address, Config
from netcode.channel.connection import Connection
from netcode.channel.endpoint import MAX_TABLE_ID, Endpoint
from netcode.channel.events import (
    NO_ANSWER,
    TABLE_BUSY,
    WRONG_CODE,
    Delivered,
    Event,
    HandshakeCompleted,
    HandshakeFailed,
    JoinAttemptFailed,
    PeerClosed,
    PeerGone,
    PeerJoined,
    RttUpdated,
    SendQueueFull,
    Unreliable,
    failed_attempts_text,
)
from netcode.channel.handshake import Initiator, Responder, SessionKeys, normalise_code
from netcode.channel.receiving import SeqWindow

__all__ = [
    "MAX_TABLE_ID",
    "NO_ANSWER",
    "TABLE_BUSY",
    "WRONG_CODE",
    "Address",
    "Admission",
    "Config",
    "Connection",
    "Delivered",
    "Endpoint",
    "Event",
    "HandshakeCompleted",
    "HandshakeFailed",
    "Initiator",
    "JoinAttemptFailed",
    "PeerClosed",
    "PeerGone",
    "PeerJoined",
    "Responder",
    "RttUpdated",
    "SendQueueFull",
    "SeqWindow",
    "SessionKeys",
    "Unreliable",
    "failed_attempts_text",
    "normalise_code",
    "source_of",
]
