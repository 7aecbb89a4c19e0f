#!/bin/bash
# What a GPU machine with torch and CUDA but no papermill, no network and no ../shared runs, in two calls:
#
#   bash tools/gpu_session.sh train SECONDS   # one seed of the transfer ladder's mt-budget4x rung, 8 runs side by
#                                             # side, stopped at SECONDS − 75; then the bench (LM only) if time is left
#   bash tools/gpu_session.sh base SECONDS    # europarl's runs at the full profile's current recipe (version 3:
#                                             # runs/full/recipe-3/), 12 side by side, stopped at SECONDS − 75
#   bash tools/gpu_session.sh bench SECONDS   # posenc bench --device cuda at T = 2,048 and 4,096 (bf16), then
#                                             # tests/gpu_check.py in what is left
#   bash tools/gpu_session.sh profile SECONDS # tools/profile_step.py at T = 4,096: each slow scheme's CUDA kernels
#   bash tools/gpu_session.sh controls SECONDS # the controls ladder's ted-tatoeba rate probe (mt-ted-lr-triple: 2
#                                             # runs), then any europarl rate run not made, stopped at SECONDS − 75
#   bash tools/gpu_session.sh all SECONDS     # the profile (a sixth of the time); the bench, one model kind at a
#                                             # time (bench-lm.json, bench-seq2seq.json: join them with `posenc bench
#                                             # --merge`), alone on the GPU; tests/gpu_check.py alone; then europarl's
#                                             # base runs (as `base`) if 300 s are left
#
# Measured on an H200 (2026-11-27): 8 mt-budget4x runs side by side train their 6,000 steps in 360–380 s (about 62 ms
# a step each, 130 steps/s together: the GPU is the limit, not the 16 cores), then each needs about a minute to start
# and to decode its test sets, so give `train` at least 480 s; tests/gpu_check.py takes about 245 s. On 2026-11-28 (`all
# 560`, 12ca19a): the LM bench took 125 s, but on torch's unfused fallback past dynamo's recompile limit (since raised,
# see runs/dev-notes-speed/gpu-h200-recompile-limit/); twelve europarl runs at recipe 2 side by side took 240–264 s
# each, evaluation included; gpu_check beside them did not finish in 272 s. Later that day (a034691, every graph
# compiled): the LM bench 128 s, the seq2seq bench 76 s once its graphs were cached (a first try stopped at its 112 s
# cap), gpu_check alone 264 s; the machine took about 45 s to start (runs/bench/nvidia-h200/).
#
# It needs, beside the working tree: .whl/ (fastcore, fastprogress and sacremoses wheels for Python 3.12, which the
# machine's image lacks) and .devdata/ (extra_fr-en/europarl_v7_subset20k_tok and wmt14_fr-en/{europarl-v7_head3k,
# newstest2014} copied from ../shared/data), both in .git/info/exclude and carried. What comes back is under $OUT:
# the finished runs as one archive (unpack with `tar xzf mt-budget4x.tgz -C runs/transfer`, `tar xzf recipe.tgz
# -C runs/full` or `tar xzf controls.tgz -C runs/controls`), logs, bench.json. Runs stopped at the deadline are not in the archive: the next session trains them.
set -u
phase=${1:?train, base, controls, bench, profile or all}; budget=${2:?seconds}
OUT=${OUT:-/tmp/posenc-out}; mkdir -p "$OUT"
t0=$(date +%s); left() { echo $(( budget - ($(date +%s) - t0) )); }
europarl_dir() {   # the folder of europarl's current recipe version in runs/full (recipe-N), as the profile says
  echo "recipe-$(python3 -c "from posenc.profiles import PROFILES; print(PROFILES['full']['task_recipe']['europarl'])")"; }
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
set -f   # no globbing from here: scheme names such as rope*3+none travel as they are
export PYTHONPATH=/tmp/site:$PWD POSENC_DATA=$PWD/.devdata POSENC_DATA_ONLY=1 PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
python3 -c "import torch; print('torch', torch.__version__, torch.cuda.get_device_name())"
check() {   # tests/gpu_check.py within $1 seconds; the schemes after $1, in that order, else all of them
  local cap=$1; shift
  timeout "$cap" python3 tests/gpu_check.py "$@" > "$OUT/gpu_check.log" 2>&1; echo "gpu_check: exit $? (124: stopped at $cap s)"
  tail -40 "$OUT/gpu_check.log"
}
if [ "$phase" = train ]; then
  python3 tools/gpu_rung.py transfer mt-budget4x --seeds 0 --workers 8 --deadline $(( budget - 75 )) --out runs/transfer 2>&1 \
    | tee "$OUT/train.log"
  tar czf "$OUT/mt-budget4x.tgz" -C runs/transfer --exclude checkpoints --exclude .partial mt-budget4x
  (( $(left) > 90 )) && timeout $(( $(left) - 10 )) python3 -m posenc.cli bench --device cuda --kinds lm --lengths 2048 4096 \
    --tokens 16384 --no_xt --no_decode --out "$OUT/bench.json" --figure "$OUT/bench.png" 2>&1 | tee "$OUT/bench.log" | tail -40
elif [ "$phase" = base ]; then
  python3 tools/gpu_rung.py --profile full --tasks europarl --workers 12 --deadline $(( budget - 75 )) 2>&1 | tee "$OUT/base.log"
  tar czf "$OUT/recipe.tgz" -C runs/full --exclude checkpoints --exclude .partial $(europarl_dir)
elif [ "$phase" = controls ]; then
  # the europarl rate grid (mt-lr-triple, 24 runs) and ted-tatoeba's seed-0 probe (mt-ted-lr-triple) are made; finished
  # runs are skipped, so this makes only what a rung adds (e.g. the probe's seeds 1-2, if `seeds` grows)
  for rung in mt-ted-lr-triple mt-lr-triple; do
    python3 tools/gpu_rung.py controls $rung --workers 12 --grace 40 --deadline $(( $(left) - 75 )) > "$OUT/$rung.log" 2>&1
    tail -15 "$OUT/$rung.log"; (( $(left) > 150 )) || break
  done
  tar czf "$OUT/controls.tgz" -C runs/controls --exclude checkpoints --exclude .partial $(cd runs/controls && ls -d mt-ted-lr-triple mt-lr-triple 2>/dev/null)
elif [ "$phase" = bench ]; then
  b=$(( budget - 20 ))
  timeout $b python3 -m posenc.cli bench --device cuda --lengths 2048 4096 --tokens 16384 --no_xt --no_decode \
    --out "$OUT/bench.json" --figure "$OUT/bench.png" 2>&1 | tee "$OUT/bench.log" | tail -60
  (( $(left) > 40 )) && check $(( $(left) - 10 ))
elif [ "$phase" = profile ]; then
  timeout $(( budget - 20 )) python3 tools/profile_step.py --device cuda --T 4096 --pes none fire cope fox shaw deberta t5 kerple \
    --out "$OUT/profile.txt" 2>&1 | tee "$OUT/profile.log" | tail -150
elif [ "$phase" = all ]; then
  # first where the slow schemes' CUDA time goes (tools/profile_step.py), then the timings
  timeout $(( budget / 6 )) python3 tools/profile_step.py --device cuda --T 4096 --pes none fire cope fox shaw deberta \
    --out "$OUT/profile.txt" > "$OUT/profile.log" 2>&1; echo "profile: exit $?"
  for kind in lm seq2seq; do    # the timings first, with nothing else on the GPU; each kind's JSON is written row by row
    if [ $kind = lm ]; then cap=$(( budget / 2 )); else cap=$(( budget / 5 )); fi
    timeout $cap python3 -m posenc.cli bench --device cuda --kinds $kind --lengths 2048 4096 --tokens 16384 --reps 5 \
      --no_xt --no_decode --out "$OUT/bench-$kind.json" --figure /tmp/bench-$kind.png > "$OUT/bench-$kind.log" 2>&1
    echo "bench $kind: exit $? (124: stopped at $cap s)"; grep -A40 '^## .*targets' "$OUT/bench-$kind.log" | head -45
  done
  # gpu_check alone (beside twelve training runs it did not finish in 272 s), then the runs if 300 s are left
  # FIRE first (its MLM bf16 gradient failed the old check), then DeBERTa and Shaw (decoding changed), then the rest
  first="fire deberta shaw"; rest=$(python3 -c "from posenc.encodings import pe_names; print(*[p for p in pe_names() if p not in '$first'.split()])")
  c=$(( $(left) - 20 )); (( c > 60 )) && check $(( c < 300 ? c : 300 )) $first $rest
  if (( $(left) >= 300 )); then
    python3 tools/gpu_rung.py --profile full --tasks europarl --workers 12 --grace 40 --deadline $(( $(left) - 75 )) \
      > "$OUT/base.log" 2>&1; tail -50 "$OUT/base.log"
    tar czf "$OUT/recipe.tgz" -C runs/full --exclude checkpoints --exclude .partial $(europarl_dir)
  fi
fi
echo "phase $phase done in $(( $(date +%s) - t0 )) s"
