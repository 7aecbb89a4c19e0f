# RoPE trained at 128 characters on Tiny Shakespeare (the cpu profile's LM settings), then evaluated at 2×, 4×, 8× the
# training length as trained and with each RoPE scaling (position interpolation, NTK-aware, YaRN) at factor f = L'/128.
# The run records them in metrics.json under extrapolation.scaled.   python runs/dev-notes-scaling/make_runs.py
import time
from multiprocessing import get_context
LM = dict(d_model=64, n_layers=4, block_size=128, batch_size=32, steps=600, eval_every=150, eval_tokens=8192, threads=1)
def job(seed):
    import torch; torch.set_num_threads(1)
    from posenc.recipes import run_experiment, run_name
    t = time.time()
    r = run_experiment('shakespeare', 'rope', seed, f'runs/dev-notes-scaling/{run_name("shakespeare", "rope", seed)}',
                       profile='dev-notes-scaling', **LM)
    ex = r.metrics['extrapolation']
    print(f"seed {seed}: val loss {r.metrics['val_loss']:.4f} ({time.time() - t:.0f} s)", flush=True)
    print('  as trained ', dict(zip(ex['lengths'], [round(v, 3) for v in ex['sliding_loss']])))
    for sc, v in ex['scaled'].items(): print(f'  {sc:<11}', dict(zip(v['lengths'], [round(x, 3) for x in v['sliding_loss']])))
if __name__ == '__main__':
    with get_context('spawn').Pool(2) as pool: list(pool.imap_unordered(job, [0, 1]))
