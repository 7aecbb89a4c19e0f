"""Cached decoding's CPU time per token (one thread, batch 1, median of 27 steps) after prompts of 512 to 4,096 tokens, per
encoding, on `posenc bench --long`'s random-weight LM (d128 × 4 layers). Process CPU time, so that it holds beside a
running sweep; compare two versions of the code with PYTHONPATH pointing at the other checkout.

    python tools/bench_decode_cpu.py none alibi xl
"""
import sys, time, statistics, torch
from posenc.bench import _long_model
torch.set_num_threads(1)
for pe in sys.argv[1:]:
    m = _long_model(pe, 4096 + 40, 128, 4, 4, 1000); out = []
    g = torch.Generator().manual_seed(1)
    for p in (512, 1024, 2048, 4096):
        ids = torch.randint(4, 1000, (1, p + 30), generator=g)
        with torch.no_grad():
            c = m.new_cache(); m(ids[:, :p], cache=c); ts = []
            for t in range(p, p + 30):
                t0 = time.process_time(); m(ids[:, t:t+1], cache=c); ts.append(time.process_time() - t0)
        out.append(1e3 * statistics.median(ts[3:]))
    print(pe, ' '.join(f'{x:.2f}' for x in out), f'growth {out[-1]/out[0]:.2f}', flush=True)
