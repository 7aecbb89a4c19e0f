"""The bench's training step under several block sizes of the fused attention, alternated step by step in one process.

    python tools/block_rows_ab.py 4096 --chunks 1048576 4194304 --pes none fire --reps 9 [--threads 2]

`chunk` is what `posenc.kernels.fused_attention` writes out at a time (elements = query rows × batch × heads × keys);
each value is passed to every call the model makes, so the schemes that take the fused path (FIRE, KERPLE, T5, …) run
with it and the others (none) do not notice. The steps of every (scheme, chunk) pair alternate within one process on one
model, so slow spells of a shared machine fall on all of them alike; prints the median step of each and its ratio to
none's. Decoder LM of `posenc bench` (4 layers, d = 128, 4 heads, 4,096 tokens a step).
"""
import argparse, statistics, time
import torch
import posenc.attention as A
import posenc.kernels as K
from posenc.bench import bench_config, make_step

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument('T', type=int)
p.add_argument('--chunks', type=int, nargs='+', default=[1 << 20, 1 << 22])
p.add_argument('--pes', nargs='+', default=['none', 'fire'])
p.add_argument('--reps', type=int, default=7)
p.add_argument('--threads', type=int, default=2)
a = p.parse_args()

torch.set_num_threads(a.threads)
orig, cur = K.fused_attention, {'chunk': a.chunks[0]}
def fused(*args, **kw):
    kw['chunk'] = cur['chunk']
    return orig(*args, **kw)
A.fused_attention = fused   # (the attention module's own name for it)

steps = {pe: make_step(bench_config('posenc', 'lm', pe, a.T, max(1, 4096 // a.T)))[1] for pe in a.pes}
pairs = [(pe, c) for pe in a.pes for c in (a.chunks[:1] if pe == 'none' else a.chunks)]
for pe, c in pairs:   # warm-up: caches, the native library, the allocator
    cur['chunk'] = c; steps[pe](); steps[pe]()
times = {x: [] for x in pairs}
for _ in range(a.reps):
    for pe, c in pairs:
        cur['chunk'] = c; t0 = time.perf_counter(); steps[pe](); times[pe, c].append(time.perf_counter() - t0)
base = statistics.median(times['none', a.chunks[0]]) if 'none' in a.pes else None
print(f"T = {a.T}, {a.threads} thread(s), {a.reps} alternated steps each (median)")
for (pe, c), ts in times.items():
    m = statistics.median(ts)
    print(f"{pe:10s} chunk {c:>9d} ({c // (max(1, 4096 // a.T) * 4 * a.T)} rows)  {m * 1000:7.0f} ms" + (f"  {m / base:.3f}× none" if base else ''))
