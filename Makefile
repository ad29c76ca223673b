# The two commands that matter on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/pip --disable-pip-version-check -q
DEMO_MEETING := examples/meetings/ko_product_planning.jsonl

.PHONY: demo test install install-test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(PIP) install -e .
	touch $@

# torch first, pinned: the CPU build this machine kind keeps on disk (a bare `torch`
# requirement from sentence-transformers would otherwise pull a CUDA build).
$(VENV)/.installed-test: pyproject.toml $(VENV)/.installed scripts/install-llm-test-server.sh
	$(PIP) install torch==2.13.0
	$(PIP) install -e '.[test,worker,cloud-stt,st]'
	scripts/install-llm-test-server.sh $(VENV)
	touch $@

install: $(VENV)/.installed

install-test: $(VENV)/.installed-test

demo: install
	$(BIN)/mithub replay $(DEMO_MEETING) --meeting-id demo-ko --calls

test: install-test
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench: install-test
	$(BIN)/python benchmarks/ingest.py
	$(BIN)/python benchmarks/segmentation.py

clean:
	rm -rf $(VENV) data .pytest_cache
