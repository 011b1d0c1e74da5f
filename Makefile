VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test bench clean

$(PY):
	python3 -m venv $(VENV)

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/romis play classic --seed 7 \
	  --bot "$(PY) -m sample_bots.greedy" --bot "$(PY) -m sample_bots.random" \
	  --bot "node sample_bots/js/random.js"

test: $(STAMP)
	@command -v node >/dev/null || { echo "node is required for the JavaScript sample bot (apt-get install nodejs)"; exit 1; }
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) bench/engine.py
	$(PY) bench/referee.py

clean:
	rm -rf $(VENV) build *.egg-info
