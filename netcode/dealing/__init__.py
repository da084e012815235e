"""No-peek dealing: the cryptography of a deal in which no program learns a face early.

Owns nothing itself; its modules each own one piece, in the order a deal uses them:

* ``group``: ristretto255 through rbcl (points, scalars, hashing to both);
* ``transcript``: Fiat–Shamir transcripts bound to the table, purpose, round and seat;
* ``elgamal``: the ciphertexts a hidden card is;
* ``proofs``: Schnorr, Chaum–Pedersen, and the recipient-bound share proof;
* ``keys``: the joint key, a joint-Feldman DKG among the key holders (threshold t);
* ``shuffle``: the verifiable re-encryption shuffle (Terelius–Wikström, as in CHVote);
* ``opening``: threshold decryption with proofs, to everyone or to one seat only;
* ``beacon``: public randomness nobody can bias;
* ``cards``: faces as points, and the public initial deck.

Everything here is sans-IO: no sockets, no clocks, no event loop. Randomness comes
from os.urandom unless a test passes ``rand``, a source of random scalars.

Must not touch: sockets, clocks, games, the sessions (the integrator wires it in).
"""
