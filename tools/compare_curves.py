"""Training curves and final scores of several runs of one task, side by side.

`python tools/compare_curves.py OUT.png RUN_DIR [RUN_DIR ...] [--labels A B ...]`

Draws the training loss (mean over windows of 50 steps) and the validation loss against the step for every run folder
given, writes OUT.png and prints, per run, the validation loss, beam BLEU on each test set, training tokens per second
and training wall time, from the runs' `log.jsonl` and `metrics.json`. Used to check that a change of speed leaves the
learning curve within seed-to-seed variation (`runs/dev-notes-speed/`).
"""
import argparse, json
from pathlib import Path
import numpy as np
import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt


def read(run:Path):
    log = [json.loads(l) for l in (run/'log.jsonl').read_text().splitlines() if l.strip()]
    return log, json.loads((run/'metrics.json').read_text())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('out')
    ap.add_argument('runs', nargs='+')
    ap.add_argument('--labels', nargs='+')
    a = ap.parse_args()
    labels = a.labels or [Path(r).parent.name + '/' + Path(r).name for r in a.runs]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.6))
    rows = []
    for run, label in zip(map(Path, a.runs), labels):
        log, m = read(run)
        steps = np.array([r['step'] for r in log]); loss = np.array([r['train_loss'] for r in log])
        w = 5   # log records are 10 steps apart: 50-step windows
        ax1.plot(steps[w - 1:], np.convolve(loss, np.ones(w) / w, mode='valid'), label=label, lw=1.2)
        val = [(r['step'], r['val_loss']) for r in log if r.get('val_loss') is not None]
        ax2.plot(*zip(*val), marker='o', label=label)
        bleu = {k: v['bleu']['beam'] if isinstance(v['bleu'], dict) else v['bleu'] for k, v in (m.get('by_test_set') or {}).items()}
        rows.append((label, m['val_loss'], bleu, m['tok_per_s'], m['train_wall_s']))
    ax1.set(xlabel='step', ylabel='training loss (50-step mean, nats)', title='training loss'); ax1.set_ylim(top=6)
    ax2.set(xlabel='step', ylabel='validation loss (nats)', title='validation loss')
    ax1.legend(fontsize=8); fig.tight_layout(); fig.savefig(a.out, dpi=110)
    sets = sorted({k for r in rows for k in r[2]})
    print('| run | val loss | ' + ' | '.join(f'BLEU {s}' for s in sets) + ' | target tok/s | training s |')
    print('|---|---|' + '---|' * len(sets) + '---|---|')
    for label, vl, bleu, tps, wall in rows:
        print(f'| {label} | {vl:.3f} | ' + ' | '.join(f"{bleu.get(s, float('nan')):.2f}" for s in sets) + f' | {tps:,.0f} | {wall:,.0f} |')
    print(f'\nwrote {a.out}')


if __name__ == '__main__': main()
