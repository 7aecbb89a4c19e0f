"""What flushing float denormals to zero (`posenc.kernels.flush_denormals`) does to a training step on this CPU.

    python tools/bench_denormals.py [T] [PE ...]        e.g. python tools/bench_denormals.py 2048 none alibi kerple

For each encoding, in two fresh processes (the flag must be set before torch starts its threads; posenc sets it when
posenc.kernels is imported, so the 'off' process undoes it right after): the CPU time of one training step of `posenc bench`'s decoder LM (4,096
tokens a batch, one thread, median of 3), and the losses of ten AdamW steps on one fixed batch, which should agree.
"""
import json, os, subprocess, sys

CHILD = r'''
import json, sys, time, torch, torch.nn.functional as F
import posenc.kernels   # (which turns the flushing on at import)
on, pe, T = sys.argv[1] == '1', sys.argv[2], int(sys.argv[3])
torch.set_flush_denormal(on); torch.set_num_threads(1)   # before any parallel operation, so the thread pool inherits it
from posenc.bench import bench_config, make_step
from posenc.models import build_model
_, step = make_step(bench_config('posenc', 'lm', pe, T, 4096 // T)); step()
ts = []
for _ in range(3):
    t0 = time.process_time(); step(); ts.append(time.process_time() - t0)
torch.manual_seed(0)
m = build_model('lm', vocab_size=1000, d_model=128, n_heads=4, n_layers=4, pe=pe, dropout=0., max_len=T)
opt = torch.optim.AdamW(m.parameters(), 1e-3)
x = torch.randint(4, 1000, (4096 // T, T + 1), generator=torch.Generator().manual_seed(1))
losses = []
for _ in range(10):
    loss = F.cross_entropy(m(x[:, :-1]).flatten(0, 1), x[:, 1:].flatten())
    loss.backward(); opt.step(); opt.zero_grad(); losses.append(loss.item())
print(json.dumps(dict(step_s=sorted(ts)[1], losses=losses)))
'''

def main():
    T = int(sys.argv[1]) if len(sys.argv) > 1 else 2048
    pes = sys.argv[2:] or ['none', 'alibi']
    env = dict(os.environ, OMP_NUM_THREADS='1')
    print(f"T = {T}, one thread, CPU seconds per training step (median of 3); ten AdamW steps' losses, off vs on")
    for pe in pes:
        r = {on: json.loads(subprocess.run([sys.executable, '-c', CHILD, on, pe, str(T)], capture_output=True, text=True,
                                           env=env, check=True).stdout.strip().splitlines()[-1]) for on in ('0', '1')}
        diff = max(abs(a - b) for a, b in zip(r['0']['losses'], r['1']['losses']))
        print(f"{pe:12s} denormals kept {r['0']['step_s']:.3f} s, flushed {r['1']['step_s']:.3f} s; "
              f"largest loss difference over 10 steps {diff:.1e}")

if __name__ == '__main__': main()
