#!/usr/bin/env bash
# The path a notebook user takes without make, as Colab's first cell does it: a clean virtual environment, the
# repository installed with `pip install` alone, then nbs/index.ipynb executed top to bottom with papermill.
# Colab brings its own torch; here torch comes from the project's constraints (a CPU build), installed first as
# Colab's would be, so that `pip install -e .` finds it satisfied and pulls nothing larger.
#   bash tools/pip_path_check.sh            (from the repository root; prints the notebook's run time)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$(mktemp -d)/venv
out=$(mktemp -d)
trap 'rm -rf "$(dirname "$venv")" "$out"' EXIT
python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q "$(grep -m1 '^torch==' constraints.txt)"   # what Colab has before its first cell
"$venv/bin/python" -m pip install -q -e .                                        # the set-up cell's install, nothing else
# the kernel is this environment's Python, not whatever `python3` kernel the machine has
"$venv/bin/python" -m ipykernel install --prefix "$venv" --name posenc-pip-path >/dev/null
start=$(date +%s)
"$venv/bin/python" -m papermill --log-level WARNING --no-progress-bar -k posenc-pip-path --cwd nbs nbs/index.ipynb "$out/index.ipynb"
"$venv/bin/python" - "$out/index.ipynb" "$venv" <<'PY'
import json, sys
nb = json.load(open(sys.argv[1]))
errors = [o for c in nb['cells'] if c['cell_type'] == 'code' for o in c.get('outputs', []) if o.get('output_type') == 'error']
assert not errors, errors
ran = sum(c['cell_type'] == 'code' and c.get('execution_count') is not None for c in nb['cells'])
print(f"pip path: nbs/index.ipynb ran {ran} code cells without error in a clean environment ({sys.argv[2]})")
PY
echo "pip path: index.ipynb took $(( $(date +%s) - start )) s"
