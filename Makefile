VENV ?= .venv
# Python caches compiled bytecode (__pycache__, git-ignored): some machines set PYTHONDONTWRITEBYTECODE, and then
# every Python process (each sample bot of every match, each worker) compiles the project from source again, about
# 0.2 s of CPU a bot start (3.5x its cost with the cache)
unexport PYTHONDONTWRITEBYTECODE
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo event test lint format test-diff test-solver bench clean node browser ccompiler cext reference fuzz soak \
  sandbox bytecode

# bubblewrap sandboxes every bot (docs/security.md); install Debian's bubblewrap when it is missing and we may.
# Without it romis runs bots only with --sandbox none (trusted bots), and the sandbox's tests skip, saying why.
sandbox:
	@command -v bwrap >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  (apt-get update -qq && apt-get install -y -qq bubblewrap >/dev/null); } || \
	  echo "romis: bubblewrap (bwrap) is not installed; bots will run only with --sandbox none"

# a sandboxed bot reads romis's packages read-only, so it cannot write their bytecode: compile it beforehand (a
# no-op when it is current), or every Python bot compiles the modules it imports at each start
bytecode: $(STAMP)
	@$(PY) -m compileall -q protocol referee sample_bots tournaments >/dev/null

# node runs the JavaScript sample bot; install Debian's nodejs when it is missing and we may
node:
	@command -v node >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  (apt-get update -qq && apt-get install -y -qq nodejs >/dev/null); } || true
	@command -v node >/dev/null || { echo "romis: node (Node.js) is required for the JavaScript sample bot; install it (e.g. apt-get install nodejs)"; exit 1; }

# a headless Chromium checks the HTML report and, driven by Selenium through chromedriver, the `romis view` page;
# install Debian's chromium and chromium-driver when they are missing and we may (the tests say why they skipped
# otherwise)
browser:
	@{ command -v chromium && command -v chromedriver; } >/dev/null || { [ "$$(id -u)" = 0 ] && \
	  command -v apt-get >/dev/null && (apt-get update -qq && apt-get install -y -qq chromium chromium-driver \
	  >/dev/null); } || echo "romis: chromium or chromedriver is not installed; the browser tests will be skipped"

# a C compiler builds the C sample bot; install Debian's gcc when it is missing and we may
ccompiler:
	@command -v $(CC) >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  (apt-get update -qq && apt-get install -y -qq gcc libc6-dev >/dev/null); } || true
	@command -v $(CC) >/dev/null || { echo "romis: a C compiler ($(CC)) is required for the C sample bot; install one (e.g. apt-get install gcc)"; exit 1; }

# the C sample bot (libc only; git-ignored), played in the end-to-end tests; written whole or not at all
C_BOT := sample_bots/c/random
$(C_BOT): sample_bots/c/random.c sample_bots/c/romis.h | ccompiler
	$(CC) -O2 -std=c99 -Wall -Wextra -o $@.tmp $< && mv $@.tmp $@

# the interpreter the venv is made from (`make PYTHON=python3.12 ...`: a Python 3.11 or newer). By default the first
# of /usr/bin/python3 and python3 that is 3.11 or newer, can make a venv with pip, and has its libpython linked into
# the executable (Debian's build; pyenv's default build calls through a shared libpython, every call inside the
# interpreter through the PLT): on it the referee spent 20-30% less CPU per decision (bench/referee.py, which prints
# the interpreter) and the test suite ran some 15% faster. Else python3. A venv made already stays as it is.
PYTHON ?= $(or $(shell for p in /usr/bin/python3 python3; do $$p -c 'import sys, venv, ensurepip; \
  sys.exit(sys.version_info < (3, 11) or "libpython" in open("/proc/self/maps").read())' 2>/dev/null && \
  { command -v $$p; break; }; done),python3)
$(PY):
	$(PYTHON) -m venv $(VENV)

# the compiled best-split search (referee/rules/_solver.c, an optional extension: the install works without it, on
# the pure-Python search) needs gcc and the Python headers; install Debian's when they are missing and we may
cext: | $(PY)
	@{ command -v $(CC) >/dev/null && [ -f "$$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["include"])')/Python.h" ]; } || \
	  { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  (apt-get update -qq && apt-get install -y -qq gcc libc6-dev python3-dev >/dev/null); } || \
	  echo "romis: no C compiler or Python headers; the best-split search stays pure Python (slower)"

$(STAMP): pyproject.toml setup.py referee/rules/_solver.c | $(PY) cext
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test,dask]'
	touch $(STAMP)

demo: $(STAMP) node sandbox bytecode
	@echo "== one match of Classic rummy between the sample bots =="
	$(VENV)/bin/romis play classic --seed 7 \
	  --bot "python -m sample_bots.greedy" --bot "python -m sample_bots.random" \
	  --bot "node sample_bots/js/random.js"
	@echo; echo "== a small round-robin among the sample bots (examples/tournament.toml) =="
	rm -rf demo-out && mkdir -p demo-out
	$(VENV)/bin/romis tournament run examples/tournament.toml --db demo-out/results.db --records demo-out/records

# issue 14's acceptance event: the sample bots over every registered variant (examples/event-all.toml), played
# afresh into demo-out/event/ with its wall time; not part of `make test` (minutes on 2 cores)
event: $(STAMP) node sandbox bytecode
	rm -rf demo-out/event && mkdir -p demo-out/event
	@start=$$(date +%s); status=0; \
	$(VENV)/bin/romis tournament run examples/event-all.toml > demo-out/event/standings.txt || status=$$?; \
	echo "event: wall time $$(( $$(date +%s) - start )) s, exit code $$status; standings in demo-out/event/standings.txt"; \
	exit $$status

# the suite runs on every core (pytest-xdist; TEST_JOBS=1 for one process, TEST_ARGS for pytest's own options)
TEST_JOBS ?= auto
test: $(STAMP) node browser sandbox bytecode $(C_BOT)
	$(PY) -m pytest -n $(TEST_JOBS) $(TEST_ARGS)

# ruff (lint and format check) on the whole tree, mypy on the packages (all configured in pyproject.toml);
# every check runs, so one pass lists every finding
lint: $(STAMP)
	@status=0; \
	$(VENV)/bin/ruff check . || status=1; \
	$(VENV)/bin/ruff format --check . || status=1; \
	$(VENV)/bin/mypy || status=1; \
	exit $$status

# rewrite the tree in the house format and apply ruff's safe fixes
format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# differential tests against OpenSpiel's gin_rummy (extra packages, so not part of `make test`)
test-diff: $(STAMP)
	$(PY) -m pip install -q open-spiel rlcard
	ROMIS_DIFF=1 $(PY) -m pytest tests/diff

# the compiled and the pure-Python best-split search on 100,000 random hands (`make test` runs 1,500)
test-solver: $(STAMP)
	ROMIS_SOLVER_HANDS=100000 $(PY) -m pytest -n $(TEST_JOBS) tests/test_solver_c.py

# the fuzzer: 100,000 cases per target (the decoder, atheris on the decoder, every registered variant's
# validator) with the counts; FUZZ_CASES=N for another number, FUZZ_ARGS="--only gin --seed 3" to narrow it;
# then every Hypothesis test at its full example count (`make test` runs the slow ones at a fraction)
FUZZ_CASES ?= 100000
fuzz: $(STAMP)
	$(PY) -m pip install -q atheris || echo "romis: atheris could not be installed; its target will be skipped"
	$(PY) tests/fuzz_main.py --cases $(FUZZ_CASES) $(FUZZ_ARGS)
	$(PY) -m pytest -q -m hypothesis --hypothesis-profile full

# the per-variant protocol reference, generated from the code (tests/test_reference.py fails when it is stale)
reference: $(STAMP)
	$(VENV)/bin/romis variants --markdown > docs/reference.md.new && mv docs/reference.md.new docs/reference.md

bench: $(STAMP) sandbox bytecode
	$(PY) -m pip install -q open-spiel rlcard  # the baselines bench/gin.py and bench/solver.py compare with
	$(PY) bench/engine.py
	$(PY) bench/referee.py
	$(PY) bench/tournament.py
	$(PY) bench/sandbox.py
	$(PY) bench/gin.py
	$(PY) bench/solver.py
	$(PY) bench/duel.py
	$(PY) bench/cluster.py

# 1,000 short matches over every variant with misbehaving bots at random seats and moments; fails if the
# referee crashed, a process was left behind or a record does not replay (bench/soak.py --help for options)
soak: $(STAMP) sandbox bytecode
	$(PY) bench/soak.py --matches $${MATCHES:-1000} --seed $${SEED:-0}

clean:
	rm -rf $(VENV) build *.egg-info $(C_BOT)
