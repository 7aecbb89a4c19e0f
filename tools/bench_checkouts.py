"""One training step of `posenc bench`'s decoder LM (4,096 tokens a batch, one thread) under two checkouts of posenc,
alternated in fresh processes, with the losses of five AdamW steps on one fixed batch, which should agree to float rounding.

    python tools/bench_checkouts.py OLD NEW T [T ...] --pes none alibi [--reps 2] [--threads 2] [--kind seq2seq]

OLD and NEW are checkouts (e.g. `git worktree add /tmp/old HEAD~1`); each process imports posenc from one of them.
Process CPU time (median of 3 steps after one warm-up), so a busy machine slows it less than wall time; with
`--threads` above 1, wall time (on an otherwise idle machine).
"""
import argparse, json, os, subprocess, sys

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'step_child.py')   # one step's time, five steps' losses

def run(checkout, pe, T, threads=1, kind='lm'):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), POSENC_STEP_THREADS=str(threads), POSENC_STEP_KIND=kind,
               PYTHONPATH=os.path.abspath(checkout))
    out = subprocess.run([sys.executable, CHILD, pe, str(T), '5'], capture_output=True, text=True, env=env, cwd=checkout, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('old'); ap.add_argument('new'); ap.add_argument('T', type=int, nargs='+')
    ap.add_argument('--pes', nargs='+', default=['none', 'alibi']); ap.add_argument('--reps', type=int, default=2)
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--kind', default='lm', choices=['lm', 'seq2seq'], help="the bench's model kind (seq2seq: Adam on its fixed batch)")
    a = ap.parse_args()
    clock = 'CPU seconds' if a.threads == 1 else 'Wall seconds'
    print(f"{clock} per training step of the {a.kind} model (median of 3, {a.threads} thread{'s' * (a.threads > 1)}), {a.reps} alternated processes per checkout; "
          f"the largest difference of the five losses, new − old")
    print('| T | encoding | old: s per step | new: s per step | new ÷ old | old ÷ none | new ÷ none | max loss difference |')
    print('|---|---|---|---|---|---|---|---|')
    for T in a.T:
        res = {}
        for pe in a.pes:
            for _ in range(a.reps):
                for which in ('old', 'new'): res.setdefault((pe, which), []).append(run(getattr(a, which), pe, T, a.threads, a.kind))
        best = {k: min(r['step_s'] for r in v) for k, v in res.items()}
        for pe in a.pes:
            o, n = best[pe, 'old'], best[pe, 'new']
            dl = max(abs(x - y) for x, y in zip(res[pe, 'new'][0]['losses'], res[pe, 'old'][0]['losses']))
            rel = lambda w: f"{best[pe, w] / best['none', w]:.2f}" if ('none', w) in best else '—'
            print(f"| {T:,} | {pe} | {o:.3f} | {n:.3f} | {n / o:.2f} | {rel('old')} | {rel('new')} | {dl:.1e} |", flush=True)

if __name__ == '__main__':
    main()
