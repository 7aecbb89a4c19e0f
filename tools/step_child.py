"""One training step of `posenc bench`'s decoder LM (or the model kind in $POSENC_STEP_KIND, e.g. seq2seq) in this
process (4,096 tokens a batch, one thread, or $POSENC_STEP_THREADS): its CPU time (wall time on more than one thread; median of 3 after one warm-up) and the losses
of N AdamW steps on one fixed batch, printed as one JSON line. The comparisons that need fresh processes run it:
`tools/bench_checkouts.py` (posenc from another checkout on PYTHONPATH) and `tools/bench_denormals.py` (the flushing of
denormals undone or kept).

    python tools/step_child.py PE T N [on|off]      on/off: torch.set_flush_denormal, before torch starts its threads
"""
import json, os, sys, time
import torch, torch.nn.functional as F
import posenc.kernels   # noqa: F401 (which turns the flushing of denormals on when it is imported)

def main(pe:str, T:int, n:int, denormals:str=None) -> dict:
    if denormals is not None: torch.set_flush_denormal(denormals == 'on')
    threads = int(os.environ.get('POSENC_STEP_THREADS', '1'))
    torch.set_num_threads(threads)   # after the flag, before any parallel operation, so that the thread pool inherits it
    clock = time.process_time if threads == 1 else time.perf_counter
    from posenc.bench import bench_config, make_step
    from posenc.models import build_model
    kind = os.environ.get('POSENC_STEP_KIND', 'lm')
    _, step = make_step(bench_config('posenc', kind, pe, T, 4096 // T)); step()
    ts = []
    for _ in range(3):
        t0 = clock(); step(); ts.append(clock() - t0)
    if kind != 'lm':   # the losses of n Adam steps of the bench's own model on its fixed batch
        _, step = make_step(bench_config('posenc', kind, pe, T, 4096 // T))
        return dict(step_s=sorted(ts)[1], losses=[step().item() for _ in range(n)])
    torch.manual_seed(0)
    m = build_model('lm', vocab_size=1000, d_model=128, n_heads=4, n_layers=4, pe=pe, dropout=0., max_len=T)
    opt = torch.optim.AdamW(m.parameters(), 1e-3)
    x = torch.randint(4, 1000, (4096 // T, T + 1), generator=torch.Generator().manual_seed(1))
    losses = []
    for _ in range(n):
        loss = F.cross_entropy(m(x[:, :-1]).flatten(0, 1), x[:, 1:].flatten())
        loss.backward(); opt.step(); opt.zero_grad(); losses.append(loss.item())
    return dict(step_s=sorted(ts)[1], losses=losses)

if __name__ == '__main__':
    print(json.dumps(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), *sys.argv[4:5])))
