"""Tools beside the transport, not part of it: the channel benchmark, the UDP fault proxy,
the seeded fault models, and the deterministic in-memory network that runs sans-IO peers
in virtual time. Nothing in ``netcode`` proper imports from here."""
