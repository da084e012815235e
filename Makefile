# The two commands: `make play` and `make test`. Both build .venv first: `make play` with
# only what playing needs (the package's own dependencies), `make test` with the test tools too.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PLAYS := $(VENV)/.installed-play
STAMP := $(VENV)/.installed

.PHONY: play test screenshots bench table-bench channel-bench join-bench start-bench serve-bench race-bench ui-bench failover-bench deal-bench adversary-bench lint clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(PLAYS): pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet -e .
	touch $(PLAYS)

$(STAMP): pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(PLAYS) $(STAMP)

play: $(PLAYS)
	$(BIN)/xmas-tui play chip-n-dale --players 4

# The UI tests and snapshots run twice: in the whole suite with the quick renderer, and beside it,
# on the other core, drawn by stock Textual (XMAS_TUI_STOCK_RENDER=1); that run's summary is
# printed after the suite's (all of it if it failed).
# Most tests wait on timers and sockets rather than the CPU, so each run is spread over more
# workers than this machine has cores (pytest-xdist).
STOCK_UI := XMAS_TUI_STOCK_RENDER=1 $(BIN)/python -m pytest -q -p no:cacheprovider -n 2 tests/test_ui*.py

test: $(STAMP)
	@$(STOCK_UI) > $(VENV)/stock-ui.log 2>&1 & stock=$$!; \
	$(BIN)/python -m pytest -q -n 4; suite=$$?; \
	wait $$stock; drawn=$$?; \
	echo "UI tests drawn by stock Textual (XMAS_TUI_STOCK_RENDER=1):"; \
	if [ $$drawn -ne 0 ]; then cat $(VENV)/stock-ui.log; else tail -n 1 $(VENV)/stock-ui.log; fi; \
	[ $$suite -eq 0 ] && [ $$drawn -eq 0 ]

# ruff, then mypy (its settings, strict for netcode and the games, are in pyproject.toml)
lint: $(STAMP)
	$(BIN)/ruff check xmas_tui netcode tests
	$(BIN)/python -m mypy

screenshots: $(STAMP)
	$(BIN)/python -m xmas_tui.tools.screenshots screenshots

# Benchmarks: each prints its figures beside a baseline measured in the same run.
bench: channel-bench join-bench table-bench start-bench ui-bench

table-bench: $(STAMP)
	$(BIN)/python -m xmas_tui.tools.table_bench --json

channel-bench: $(STAMP)
	$(BIN)/python -m netcode.tools.channel_bench echo --json
	$(BIN)/python -m netcode.tools.channel_bench kcp --json

# joining: handshake time on loopback sockets, and a whole simulated table with and without
join-bench: $(STAMP)
	$(BIN)/python -m netcode.tools.join_bench handshake --json
	$(BIN)/python -m netcode.tools.join_bench table --json
	$(BIN)/python -m netcode.tools.join_bench flood --json

start-bench: $(STAMP)
	$(BIN)/python -m xmas_tui.tools.start_bench

# Dragons & Chickens races through the fault proxy: real processes on loopback; about five minutes
# for the ordinary table, then the same at a no-peek table (each room opened by the players'
# programs at its instant); each prints one JSON line.
race-bench: $(STAMP)
	$(BIN)/python -m xmas_tui.tools.race_bench --races 200
	$(BIN)/python -m xmas_tui.tools.race_bench --races 200 --no-peek

# Keypress to repaint on each board at 80x24, each key the next move of a recorded game, beside a bare
# Textual app (goal: p99 <= 16 ms).
# Each board twice: stock Textual (XMAS_TUI_STOCK_RENDER=1) beside the quick renderer; a few minutes.
ui-bench: $(STAMP)
	$(BIN)/python -m xmas_tui.tools.ui_bench --json

# The no-peek deal's cryptography: DKG, shuffles with proofs, openings, beacon; 6 players,
# 100 cards, then every game's real deck at its largest table (about half a minute).
deal-bench: $(STAMP)
	$(BIN)/python -m xmas_tui.tools.deal_bench --json

failover-bench: $(STAMP)
	$(BIN)/python -m xmas_tui.tools.failover_bench --sims 1000 --real 100

# One bad program at each of 1,000 seeded simulated tables, for every adversary strategy: hangs,
# wrong results, spins and attacks named (about 100 minutes on 2 cores: the bad hosts play no-peek
# tables, 0.2-2.5 s each; --tables N for fewer, --strategy NAME for one).
adversary-bench: $(STAMP)
	$(BIN)/python -m xmas_tui.tools.adversary_bench --tables 1000 --workers 2

# Needs OpenSSH's client (ssh); takes about two minutes.
serve-bench: $(STAMP)
	$(BIN)/python -m xmas_tui.tools.serve_bench

clean:
	rm -rf $(VENV) build *.egg-info
