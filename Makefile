# The two commands that matter on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/pip --disable-pip-version-check -q
DEMO_MEETING := examples/meetings/ko_product_planning.jsonl
DEMO_MEETING_2 := examples/meetings/ko_product_planning_2.jsonl
DEMO_MEETING_3 := examples/meetings/ko_product_planning_3.jsonl
DEMO_DIR := data/demo
DEMO_STORE := sqlite+aiosqlite:///$(DEMO_DIR)/mithub.db
DEMO_QUESTION := 지난 회의에서 숫자 인식 오류 우선순위는 어떻게 하기로 했었죠?
DEMO_QUESTION_3 := GPU 서버는 몇 대로 하기로 했었죠?
DEMO_DOCS := examples/documents/company_docs.jsonl
DEMO_DOCS_2 := examples/documents/company_docs_2.jsonl
DEMO_DOC_QUESTION := GPU 서버 구매 금액이 1억 원을 넘으면 누가 승인하나요?

.PHONY: demo test install install-test bench train clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# torch first, pinned: the CPU build this machine kind keeps on disk (the dense retrieval
# channel's e5 runs on it; a bare `torch` requirement would otherwise pull a CUDA build).
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(PIP) install torch==2.13.0
	$(PIP) install -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml $(VENV)/.installed scripts/install-llm-test-server.sh
	$(PIP) install -e '.[test,worker,cloud-stt,st]'
	scripts/install-llm-test-server.sh $(VENV)
	touch $@

install: $(VENV)/.installed

install-test: $(VENV)/.installed-test

# Three meetings of one series, a week apart, in an embedded SQLite store made afresh: the
# later ones' calls also search the earlier ones (the organisation's memory), and the third
# asks about a decision the second changed (the ledger's current value leads the answer).
demo: install
	rm -rf $(DEMO_DIR)
	MEMORY_CACHE_DIR=$(DEMO_DIR)/memory $(BIN)/mithub replay $(DEMO_MEETING) --meeting-id demo-ko-1 \
	  --series demo-ko --started-at 2026-05-04T10:00:00+09:00 --database-url $(DEMO_STORE) --calls
	MEMORY_CACHE_DIR=$(DEMO_DIR)/memory $(BIN)/mithub replay $(DEMO_MEETING_2) --meeting-id demo-ko-2 \
	  --series demo-ko --started-at 2026-05-11T10:00:00+09:00 --database-url $(DEMO_STORE) --calls \
	  --question "$(DEMO_QUESTION)"
	MEMORY_CACHE_DIR=$(DEMO_DIR)/memory $(BIN)/mithub replay $(DEMO_MEETING_3) --meeting-id demo-ko-3 \
	  --series demo-ko --started-at 2026-05-18T10:00:00+09:00 --database-url $(DEMO_STORE) --calls \
	  --question "$(DEMO_QUESTION_3)"
	$(BIN)/mithub decisions --series demo-ko --database-url $(DEMO_STORE)
	$(BIN)/mithub actions --series demo-ko --database-url $(DEMO_STORE)
	$(BIN)/mithub minutes demo-ko-2 --format md --database-url $(DEMO_STORE)
	$(BIN)/mithub index build --input $(DEMO_DOCS) --out $(DEMO_DIR)/index
	$(BIN)/mithub index add --index $(DEMO_DIR)/index --input $(DEMO_DOCS_2)
	$(BIN)/mithub search "$(DEMO_DOC_QUESTION)" --index $(DEMO_DIR)/index --top-k 2
	@echo "The recap page: API_TOKEN=<a long random token> $(BIN)/mithub api --database-url $(DEMO_STORE)"
	@echo "then open http://127.0.0.1:8000/ui/ and sign in with that token."

# The system packages the tests need (PostgreSQL, espeak-ng, Chromium): installed when run as
# root with apt-get, otherwise the command that installs them is printed and the run stops.
test: install-test
	scripts/test-system-packages.sh
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench: install-test
	$(BIN)/python benchmarks/ingest.py
	$(BIN)/python benchmarks/segmentation.py

# Refit the record's and the topic detector's models from the benchmark data beside the
# repository (only training reads it; the fitted weights ship inside the package).
TRAIN_DATA ?= ../shared/benchmarks/data
train: install
	$(BIN)/python -m mithub.record.training decisions --data $(TRAIN_DATA)
	$(BIN)/python -m mithub.record.training actions --data $(TRAIN_DATA)
	$(BIN)/python -m mithub.topics.training --data $(TRAIN_DATA)

clean:
	rm -rf $(VENV) data .pytest_cache
