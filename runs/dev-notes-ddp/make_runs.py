"""1 process × batch 16 against 2 processes × 8 (torchrun, gloo on CPU) on Tiny Shakespeare: the DDP equivalence figure.

    PYTHONPATH=. python runs/dev-notes-ddp/make_runs.py     # from the project root; about a minute on 2 cores

Writes the two run folders, ddp_equivalence.json (the loss of every step of both runs and their difference)
and ddp_equivalence.png."""
import json, os, shutil, subprocess, sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
LM = dict(d_model=64, n_heads=4, n_layers=2, block_size=64, batch_size=16, dropout=0.0, lr=2e-3, schedule='cosine',
          warmup=10, steps=200, log_every=1, eval_every=0, eval_tokens=8192, threads=1, device='cpu')
ONE, TWO = HERE/'shakespeare__rope__s0__1x16', HERE/'shakespeare__rope__s0__2x8'

def run_one():
    import torch; torch.set_num_threads(1)
    from posenc.recipes import run_experiment
    return run_experiment('shakespeare', 'rope', 0, ONE, resume=False, **LM).metrics

def run_two():
    torchrun = shutil.which('torchrun') or str(Path(sys.executable).parent/'torchrun')
    tmp = HERE/'.ddp-runs'   # `posenc train` names the folder <task>__<pe>__s<seed> inside --runs_dir
    cmd = [torchrun, '--standalone', '--nproc_per_node', '2', '-m', 'posenc.cli', 'train', 'shakespeare', 'rope', '--distributed',
           '--seed', '0', '--restart', '--runs_dir', str(tmp)]
    cmd += [a for k, v in LM.items() for a in ('--set', f'{k}={json.dumps(v)}')]
    env = dict(os.environ, OMP_NUM_THREADS='1', PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get('PYTHONPATH', ''))
    subprocess.run(cmd, check=True, env=env, cwd=ROOT)
    shutil.rmtree(TWO, ignore_errors=True); shutil.move(tmp/'shakespeare__rope__s0', TWO); shutil.rmtree(tmp)
    return json.loads((TWO/'metrics.json').read_text())

if __name__ == '__main__':
    from posenc.train import read_jsonl
    m1, m2 = run_one(), run_two()
    l1, l2 = read_jsonl(ONE/'log.jsonl'), read_jsonl(TWO/'log.jsonl')
    assert [r['step'] for r in l1] == [r['step'] for r in l2]
    steps = [r['step'] for r in l1]
    a, b = [r['train_loss'] for r in l1], [r['train_loss'] for r in l2]
    diff = [y - x for x, y in zip(a, b)]
    res = dict(task='shakespeare', pe='rope', seed=0, params=LM, batch_size=LM['batch_size'], world_size=2,
               rows_per_rank=LM['batch_size'] // 2, steps=steps, loss_1=a, loss_2=b, diff=diff,
               max_abs_diff=max(map(abs, diff)), max_rel_diff=max(abs(d) / x for d, x in zip(diff, a)),
               val_loss_1=m1['val_loss'], val_loss_2=m2['val_loss'], train_tokens_1=m1['train_tokens'],
               train_tokens_2=m2['train_tokens'], tok_per_s_1=m1['tok_per_s'], tok_per_s_2=m2['tok_per_s'])
    (HERE/'ddp_equivalence.json').write_text(json.dumps(res, indent=1) + '\n')
    import matplotlib; matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(9, 3.2))
    ax.plot(steps, a, label='1 process × 16', lw=2.5, alpha=0.6)
    ax.plot(steps, b, '--', label='2 processes × 8 (DDP)', lw=1.2)
    ax.set(xlabel='step', ylabel='training loss (nats / char)', title='Tiny Shakespeare, char LM, RoPE'); ax.legend()
    bx.plot(steps, diff, lw=1)
    bx.axhline(0, color='k', lw=0.5)
    bx.set(xlabel='step', ylabel='loss(2 × 8) − loss(1 × 16)', title=f"difference (max |Δ| = {res['max_abs_diff']:.1e})")
    bx.ticklabel_format(axis='y', style='sci', scilimits=(0, 0))
    fig.tight_layout(); fig.savefig(HERE/'ddp_equivalence.png', dpi=110)
    print(f"max |Δ loss| = {res['max_abs_diff']:.3e} (relative {res['max_rel_diff']:.2e}); "
          f"val loss {m1['val_loss']:.6f} (1 × 16) vs {m2['val_loss']:.6f} (2 × 8)")
