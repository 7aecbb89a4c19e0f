"""CPU time of one training step of `posenc bench`'s decoder LM (4,096 tokens a batch) on one thread, per encoding.

    python tools/bench_step_cpu.py T REPS PE [PE ...]      e.g. python tools/bench_step_cpu.py 2048 3 none fire cope

Process CPU time, so a busy machine slows it less than wall time; compare two versions of the code back to back
(the older one with PYTHONPATH pointing at its checkout).
"""
import sys, time, torch
from posenc.bench import bench_config, make_step
torch.set_num_threads(1)
T, reps = int(sys.argv[1]), int(sys.argv[2])
for pe in sys.argv[3:]:
    _, step = make_step(bench_config('posenc', 'lm', pe, T, 4096 // T))
    step()
    ts = []
    for _ in range(reps):
        t0 = time.process_time(); step(); ts.append(time.process_time() - t0)
    print(pe, T, 'cpu s per step: min %.2f median %.2f' % (min(ts), sorted(ts)[len(ts)//2]), flush=True)
