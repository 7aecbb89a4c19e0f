#!/usr/bin/env bash
# A Dask sweep of two real runs on a scheduler and two workers (127.0.0.1); the worker running copy__rope__s0 is
# SIGKILLed half way; the log shows the run resumed on the other worker. Usage: tools/dask_killed_worker.sh LOG
set -u
BIN=${BIN:-.venv/bin}; D=$(mktemp -d); LOG=$1; export OMP_NUM_THREADS=1
cat > $D/demo.toml <<'TOML'
description = "two tiny copy runs"
pes = ["rope", "alibi"]
seeds = [0]
[tasks.copy]
steps = 300
ckpt_every = 20
log_every = 10
n_train = 300
n_test_per_length = 2
train_max_len = 4
TOML
$BIN/dask scheduler --host 127.0.0.1 --port 0 --no-dashboard --scheduler-file $D/scheduler.json > $D/scheduler.log 2>&1 & S=$!
while ! grep -q address $D/scheduler.json 2>/dev/null; do sleep 0.2; done
for w in a b; do
  $BIN/dask worker --scheduler-file $D/scheduler.json --nthreads 1 --nworkers 1 --no-nanny --no-dashboard --host 127.0.0.1 --name $w > $D/worker-$w.log 2>&1 &
  eval "W_$w=$!"
done
ADDR=$($BIN/python -c "import json,sys; print(json.load(open(sys.argv[1]))['address'])" $D/scheduler.json)
$BIN/python -c "from distributed import Client; import sys; c = Client(sys.argv[1]); c.wait_for_workers(2, timeout=120); print('\n'.join(f'# worker {w[\"name\"]}: {a}' for a, w in c.scheduler_info(n_workers=-1)['workers'].items()))" $ADDR > $D/workers.txt
{
  echo "# $(date -u '+%F %T') UTC: a Dask scheduler at $ADDR and two workers, one thread each (pids: a=$W_a, b=$W_b)"
  cat $D/workers.txt
  echo "\$ posenc sweep --profile demo.toml --scheduler $ADDR --runs-dir RUNS"
} > $LOG
RD=$D/runs
$BIN/posenc sweep --profile $D/demo.toml --scheduler $ADDR --runs-dir $RD >> $LOG 2>&1 & P=$!
STAGE=$RD/.partial/copy__rope__s0
while ! [ -f $STAGE/checkpoints/last.pt ] || [ $(wc -l < $STAGE/log.jsonl 2>/dev/null || echo 0) -lt 8 ]; do sleep 0.2; done
CHILD=$(awk '{print $3}' $RD/.partial/copy__rope__s0.lock); PARENT=$(awk '/^PPid/{print $2}' /proc/$CHILD/status)
VICTIM=$([ "$PARENT" = "$W_a" ] && echo a || echo b)
echo "### $(date -u '+%T') SIGKILL worker $VICTIM (pid $PARENT), which runs copy__rope__s0 (at $(tail -1 $STAGE/log.jsonl | cut -c1-40)...)" >> $LOG
kill -9 $PARENT
wait $P; echo "# posenc sweep exited with status $?" >> $LOG
for n in copy__rope__s0 copy__alibi__s0; do
  $BIN/python -c "import json,sys; m = json.load(open(sys.argv[1])); print('#', sys.argv[2], {k: m.get(k) for k in ('status', 'steps', 'resumed_from', 'val_loss', 'wall_s')})" $RD/$n/metrics.json $n >> $LOG
done
echo "# left in .partial/: $(ls -A $RD/.partial | tr '\n' ' ')" >> $LOG
kill $S $W_a $W_b 2>/dev/null; wait 2>/dev/null
rm -rf $D
