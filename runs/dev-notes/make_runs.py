# dev-notes measurements: 2 worker processes, 1 thread each
import os, sys, time, json
from multiprocessing import get_context
LM = dict(d_model=64, n_heads=4, n_layers=2, block_size=128, batch_size=16, dropout=0.0, lr=2e-3, schedule='cosine',
          warmup=100, steps=None, token_budget=16*128*600, eval_every=200, eval_tokens=16384, log_every=50, threads=1)
MT = dict(d_model=64, n_heads=4, n_layers=2, dropout=0.1, lr=2e-3, schedule='cosine', warmup=100, label_smoothing=0.1,
          vocab_size=2000, batch_tokens=2048, max_src_len=64, max_tgt_len=64, steps=None, token_budget=800_000,
          eval_every=200, valid_size=300, test_size=300, beam_size=4, log_every=50, threads=1)
PES = ['none', 'sinusoidal', 'learnable', 'layerwise', 'shaw', 't5', 'rope', 'alibi']
def job(args):
    task, pe, params = args
    import torch; torch.set_num_threads(1)
    from posenc.recipes import run_experiment, run_name
    t = time.time()
    if os.path.exists(f'runs/dev-notes/{run_name(task, pe, 0)}/metrics.json'): return
    try:
        r = run_experiment(task, pe, 0, f'runs/dev-notes/{run_name(task, pe, 0)}', profile='dev-notes', **params)
        print(f"done {task} {pe} {time.time()-t:.0f}s", flush=True)
    except Exception as e: print(f"FAILED {task} {pe}: {e}", flush=True)
if __name__ == '__main__':
    jobs = [('ted-small', pe, MT) for pe in PES] + [('shakespeare', pe, LM) for pe in PES]
    with get_context('spawn').Pool(2) as pool: list(pool.imap_unordered(job, jobs))
