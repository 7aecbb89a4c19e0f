"""Model FLOP utilisation of a full-profile recipe with whatever posenc is on the path, an older checkout included.

`PYTHONPATH=CHECKOUT python tools/mfu_of_checkout.py TASK PE N` trains N real steps at one thread (after 3) and prints the
median step time, target tokens/s, model GFLOP/s (posenc.bench's `train_flops`, written out here because older
checkouts lack it), the dense matmul rate and their ratio. Both are timed in the process's CPU time (one thread), so
that two checkouts compared beside a running sweep are compared on their own work. For the numbers before the speed changes of the
encoder-decoder: `git worktree add /tmp/old 50c76e3 && ln -s $PWD/../shared /tmp/shared` then run it with
`PYTHONPATH=/tmp/old` from /tmp/old.
"""
import sys, time, torch, statistics
clock = time.process_time   # CPU time of this process: one thread, other work on the machine does not count
from posenc import sweep as sw
from posenc.recipes import check_params, _model_config, _train_config, task_kind
import posenc, pathlib
# by file, not by a failed import: with posenc installed in editable mode, its finder would serve the installed
# checkout's posenc.kinds to an older checkout on PYTHONPATH that has none
if (pathlib.Path(posenc.__file__).parent / 'kinds.py').exists():   # task kinds as objects
    from posenc.kinds import get_kind; prepare = lambda kind: get_kind(kind).hook('prepare')
else: from posenc.recipes import _PREPARE; prepare = _PREPARE.__getitem__                      # older checkouts
from posenc.models import build_model
from posenc.train import Trainer, seed_everything, batch_targets
torch.set_num_threads(1)
def flops(c, b):
    d, V = c.d_model, c.vocab_size; real = lambda t: (t != 0).sum(1).double()
    blk, att = 2 * (4 * d * d + 2 * d * c.d_ff), lambda a, k: 4 * d * float((a * k).sum())
    head = 2 * d * V * int((batch_targets(b) != 0).sum())
    if 'src' in b:
        S, T = real(b['src']), real(b['tgt_in'])
        f = c.n_layers * (blk * float(S.sum()) + att(S, S)) + c.n_dec_layers * (blk * float(T.sum()) + 4 * d * d * float(T.sum() + S.sum()) + att(T, T) + att(T, S))
    else:
        L = real(b['x']); f = c.n_layers * (blk * float(L.sum()) + att(L, L))
    return 3 * (f + head)
task, pe, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
job = sw.plan('full', pes=[pe], tasks=[task])[0]
p = check_params(task, job.params, pe)
prep = prepare(task_kind(task))(task, p, 0)
seed_everything(0)
model = build_model('seq2seq' if task_kind(task) == 'seq2seq' else 'lm', _model_config(p, prep, pe))
tr = Trainer(model, prep.get_batch, _train_config(p, 0)); tr.net.train()
ts, tok, fl = [], 0, 0.
for s in range(n + 3):
    t0 = clock(); b = prep.get_batch(s); out = tr.train_step(b); dt = clock() - t0
    if s >= 3: ts.append(dt); tok += out['tokens']; fl += flops(model.cfg, b)
a = torch.randn(1024, 1024); bm = torch.randn(1024, 1024); a @ bm
best = min((lambda t0: (a @ bm, clock() - t0)[1])(clock()) for _ in range(5))
peak = 2 * 1024 ** 3 / best / 1e9
print(f'{task} {pe}: {1e3 * statistics.median(ts):.0f} ms/step, {tok / sum(ts):.0f} target tok/s, {fl / sum(ts) / 1e9:.1f} model GFLOP/s, peak {peak:.1f}, MFU {fl / sum(ts) / 1e9 / peak:.1%} over {n} steps')
