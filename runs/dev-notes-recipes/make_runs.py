"""Probes that chose the recipes of profiles/full.toml: one run each, seed 0, one thread.

    PYTHONPATH=. python runs/dev-notes-recipes/make_runs.py run NAME   # (re)run one probe into runs/dev-notes-recipes/NAME
    PYTHONPATH=. python runs/dev-notes-recipes/make_runs.py summary    # rewrite summary.md from the probes' metrics.json

Each probe is `run_experiment(task, pe, 0, **params)`; its folder keeps config.json, log.jsonl and metrics.json.
"""
import json, sys
from pathlib import Path

HERE = Path(__file__).parent
SYN = dict(d_model=64, n_layers=2, n_heads=4, n_train=50_000, dropout=0.0, steps=3000, eval_every=1000, train_max_len=8,
           test_max_len=16, n_test_per_length=50, batch_size=32)
MLM = dict(d_model=128, n_heads=4, n_layers=4, dropout=0.0, block_size=64, batch_size=12, steps=2000, lr=1e-3,
           schedule='cosine', warmup=100, min_lr_ratio=0.1, weight_decay=0.1, betas=(0.9, 0.99), eval_every=500, eval_tokens=None)
MT = dict(d_model=128, n_heads=4, n_layers=3, vocab_size=4000, batch_tokens=4096, steps=1500, eval_every=500, dropout=0.1,
          lr=1e-3, warmup=400, valid_size=500, test_size=None)
PROBES = {   # name -> (task, pe, params, what it asks)
    **{f'{t}-d64': (t, 'rope', SYN, f'{t}: 2 × 64, 3,000 steps, 50k examples, no dropout') for t in ('reverse', 'sort', 'duplicate', 'parity', 'addition')},
    'addition-d128': ('addition', 'rope', dict(SYN, d_model=128, lr=1e-3, steps=4000, n_test_per_length=100),
                      'addition: 2 × 128, lr 1e-3, 4,000 steps'),
    'copy-none': ('copy', 'none', dict(SYN, steps=4000, n_test_per_length=100), 'copy, NoPE: 2 × 64, 4,000 steps'),
    'reverse-none': ('reverse', 'none', dict(SYN, steps=6000, n_test_per_length=100), 'reverse, NoPE: 2 × 64, 6,000 steps'),
    'reverse-none-b64': ('reverse', 'none', dict(SYN, batch_size=64, n_test_per_length=100), 'reverse, NoPE: 2 × 64, batch 64, 3,000 steps'),
    'ted-tatoeba-rope': ('ted-tatoeba', 'rope', MT, 'ted-tatoeba, RoPE: 3+3 × 128, 4k BPE, 1,500 steps of 4,096 tokens'),
    **{f'{t}-rope': (t, 'rope', MT, f'{t}, RoPE: the ted-tatoeba recipe on the WMT side') for t in ('wmt-europarl', 'wmt-europarl-hansard')},
    **{f'passkey-{pe}': ('passkey', pe, dict(SYN, train_max_len=32, test_max_len=None, test_lengths=[32, 64, 128, 256, 512],
                                             n_test_per_length=100), f'passkey, {pe}: 2 × 64, filler ≤ 32 digits, 3,000 steps')
       for pe in ('rope', 'none', 'alibi')},
    'passkey-none-8k': ('passkey', 'none', dict(SYN, train_max_len=32, test_max_len=None, test_lengths=[32, 64, 128, 256, 512],
                                                n_test_per_length=100, steps=8000), 'passkey, none: 2 × 64, filler ≤ 32 digits, 8,000 steps'),
    'europarl-rope': ('europarl', 'rope', MT, 'europarl, RoPE: the ted-tatoeba recipe, tested on held-out Europarl and newstest2014'),
    **{f'mlm-{pe}-sqrtd': ('shakespeare-mlm', pe, dict(MLM, scale_emb=True), f'MLM {pe}, embeddings × √d (the earlier default)')
       for pe in ('learnable', 'none')},
    **{f'mlm-{pe}': ('shakespeare-mlm', pe, dict(MLM, scale_emb=False), f'MLM {pe}, unscaled embeddings') for pe in ('learnable', 'none', 'sinusoidal')},
}

def run(name):
    from posenc.recipes import run_experiment
    task, pe, params, _ = PROBES[name]
    r = run_experiment(task, pe, 0, out_dir=HERE/name, threads=1, progress=False, **params)
    print(name, r)

def _main_metric(m):
    if 'acc_in_dist' in m:
        base = (m.get('baseline') or {}).get('constant_answer')   # probes run before baselines were recorded have none
        return (f"in-distribution {m['acc_in_dist']:.3f}, longer {m['acc_ood']:.3f}"
                + (f"; best constant answer {base:.3f}" if base is not None else ''))
    if 'val_bpt_masked' in m:
        return f"validation loss {m['val_loss']:.3f} nats (unigram model {m['baseline']['unigram']:.3f})"
    if 'bleu' in m:
        return '; '.join(f"{k} BLEU {v['bleu']:.2f} (source copied {v['copy_source']['bleu']:.2f})" for k, v in m['by_test_set'].items())
    return f"validation loss {m['val_loss']:.3f}"

def summary():
    rows = ['| probe | what | result | train time |', '|---|---|---|---|']
    for name, (task, pe, params, what) in PROBES.items():
        f = HERE/name/'metrics.json'
        if not f.is_file(): rows.append(f'| {name} | {what} | not run | |'); continue
        m = json.loads(f.read_text())
        rows.append(f"| {name} | {what} | {_main_metric(m)} | {m['train_wall_s']:.0f} s |")
    (HERE/'summary.md').write_text('# Recipe probes (seed 0, one thread)\n\n' + '\n'.join(rows) + '\n')
    print((HERE/'summary.md').read_text())

if __name__ == '__main__':
    {'run': lambda: run(sys.argv[2]), 'summary': summary}[sys.argv[1]]()
