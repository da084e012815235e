"""``python -m xmas_tui``: the same as the ``xmas-tui`` command."""

import sys

from .cli import main

sys.exit(main())
