"""Tools beside the transport, not part of it: the channel and join benchmarks, the UDP
fault proxy, the door flood (forged INITs), and the code guesses. Nothing in the
product (``netcode`` proper, ``xmas_tui`` outside its own tools) imports from here; the
seeded fault models and the in-memory network they share with the product are in
``netcode.simulator``."""
