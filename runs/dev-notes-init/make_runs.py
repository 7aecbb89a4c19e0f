# re-run the learned absolute schemes on Tiny Shakespeare at the dev-notes settings after the init change
import time
from multiprocessing import get_context
LM = dict(d_model=64, n_heads=4, n_layers=2, block_size=128, batch_size=16, dropout=0.0, lr=2e-3, schedule='cosine',
          warmup=100, steps=None, token_budget=16*128*600, eval_every=200, eval_tokens=16384, log_every=50, threads=1)
def job(pe):
    import torch; torch.set_num_threads(1)
    from posenc.recipes import run_experiment, run_name
    t = time.time()
    r = run_experiment('shakespeare', pe, 0, f'runs/dev-notes-init/{run_name("shakespeare", pe, 0)}', profile='dev-notes-init', pe_opts=dict(init_std=2 ** -0.5), **LM)
    print(pe, round(r.metrics['val_loss'], 4), f"{time.time()-t:.0f}s", flush=True)
if __name__ == '__main__':
    with get_context('spawn').Pool(2) as pool: list(pool.imap_unordered(job, ['learnable', 'layerwise']))
