# Two commands on a fresh clone:  `make run` (set up + main job)  and  `make test` (set up + all tests).
PY      ?= python3
VENV    ?= .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.posenc-installed
PROFILE ?= default
PYTEST_N ?= 2   # pytest processes (pytest-xdist); the suite is sized for 2 cores

.PHONY: smoke status setup run test nbtest pytest sync export clean-nbs readme report bench help lab

help:
	@echo "make run    set up .venv and run the main job (profile=$(PROFILE))"
	@echo "make test   set up .venv and run every test (notebooks + pytest + notebook/library sync)"
	@echo "make lab    set up .venv and open the notebooks in JupyterLab"

$(STAMP): settings.ini setup.py constraints.txt
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade-strategy only-if-needed -c constraints.txt -e ".[dev]"
	$(BIN)/nbdev_install_hooks >/dev/null 2>&1 || true
	touch $(STAMP)

setup: $(STAMP)

run: $(STAMP)
	$(BIN)/posenc run --profile $(PROFILE)

smoke: $(STAMP)
	$(BIN)/posenc run --profile smoke

status: $(STAMP)
	$(BIN)/posenc status --profile $(PROFILE)

test: $(STAMP) sync nbtest pytest

# the exported library must be exactly what the notebooks say: export, and fail if that changed posenc/
sync: $(STAMP)
	@snap=$$(mktemp -d) && cp -r posenc $$snap/ && $(BIN)/nbdev_export && \
	if diff -r -q -x __pycache__ $$snap/posenc posenc; then rm -rf $$snap; else rm -rf $$snap; \
	  echo "posenc/ was out of sync with nbs/: it has now been exported; review and commit it"; exit 1; fi

nbtest: $(STAMP)
	$(BIN)/nbdev_test --n_workers 2 --timing

pytest: $(STAMP)
	$(BIN)/python -m pytest -q -n $(PYTEST_N) tests

# JupyterLab on the notebooks (as root it needs --allow-root); extra options through LAB_OPTS, e.g. LAB_OPTS=--no-browser
lab: $(STAMP)
	$(BIN)/jupyter lab --notebook-dir=nbs $$( [ "$$(id -u)" = 0 ] && echo --allow-root ) $(LAB_OPTS)

export: $(STAMP)
	$(BIN)/nbdev_export

clean-nbs: $(STAMP)
	$(BIN)/nbdev_clean

# README.md is generated from nbs/index.ipynb offline (nbdev_readme needs Quarto); cells tagged
# hide-input show only their output
README_CMD = $(BIN)/jupyter nbconvert --to markdown --log-level WARN --stdout \
	--TagRemovePreprocessor.enabled=True --TagRemovePreprocessor.remove_input_tags='{"hide-input"}' \
	--TagRemovePreprocessor.remove_cell_tags='{"remove-cell"}' nbs/index.ipynb
readme: $(STAMP)
	$(README_CMD) > README.md
