"""The probes of a ladder: every finished run of each rung with its headline measure, the task's trivial baseline,
whether it passed the training check, and its wall time; per rung, its core-hours: measured (the sum of its runs' wall
times, one thread a run) once every planned run is in, else estimated (mean wall time of the runs in × runs planned). Settings tried for a rung before it was fixed lie in runs/<ladder>-probes/<variant>/ and are listed
as (probe) rows.

    python tools/ladder_probes.py [LADDER]        (default: transfer)

Wall times are those each run recorded (`metrics.json`); runs made beside other work on a busy machine take longer
than on an idle core, so the estimate is an upper bound for an idle machine.
"""
import math, sys
import numpy as np
from posenc.io import project_root
from posenc.kinds import get_kind
from posenc.ladder import load_ladder
from posenc.results import load_runs, metric_at, select

def main(name='transfer'):
    lad = load_ladder(name)
    root = project_root()/'runs'/lad.name
    print(f"| rung | run | {'headline':>10} | trivial baseline | passed | wall (min) |")
    print('|---|---|---|---|---|---|')
    est = []
    variants = sorted(d for d in (project_root()/'runs'/f'{lad.name}-probes').glob('*') if d.is_dir())   # settings tried before a rung's
    for name, d in [(r.name, root/r.name) for r in lad.select()] + [(f'(probe) {d.name}', d) for d in variants]:
        rs = select(load_runs(d)) if d.is_dir() else []
        walls = [x['metrics']['wall_s'] for x in rs if isinstance(x['metrics'].get('wall_s'), (int, float))]
        for x in rs:
            k = get_kind(x['kind']); rule = k.trained
            v, b = metric_at(x, k.headline.measure), metric_at(x, 'baseline.' + rule.baseline)
            got = metric_at(x, rule.measure)
            ok = rule.passes(got, b if isinstance(b, (int, float)) else math.nan) if isinstance(got, (int, float)) else None
            extra = f"; at the training lengths {x['metrics']['acc_in_dist']:.3f}" if 'acc_in_dist' in x['metrics'] else ''
            print(f"| {name} | {x['task']} / {x['pe']} / s{x['seed']} | {k.headline.what} {v:.3f}{extra} | "
                  f"{rule.baseline_name}: {b if not isinstance(b, float) else round(b, 3)} | {ok} | {x['metrics']['wall_s'] / 60:.1f} |")
        if name.startswith('(probe)'): continue
        r = lad[name]; n = len(r.pes) * len(r.seeds) * len(r.tasks)
        if len(walls) >= n: est.append((r.name, len(walls), n, sum(walls) / 3600, 'measured'))
        elif walls: est.append((r.name, len(walls), n, np.mean(walls) / 3600 * n, 'estimate'))
        else: est.append((r.name, 0, n, None, ''))   # no probe yet
    print('\n| rung | runs in | runs planned | core-hours | |\n|---|---|---|---|---|')
    for rn, k, n, h, how in est: print(f"| {rn} | {k} | {n} | {'—' if h is None else f'{h:.1f}'} | {how} |")

if __name__ == '__main__': main(*sys.argv[1:])
