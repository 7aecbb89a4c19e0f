"""Every translation run of a profile re-scored from its own files with sacrebleu's Python API.

    python tools/rescore_check.py [RUNS_DIR]        (default: runs/full)

For each finished translation run, each test set in `metrics.json`'s `by_test_set` must have its hypotheses and
references in `by_test_set/<set>.hyp.txt` and `.ref.txt`, with as many lines as the set's sentences, and BLEU and chrF
recomputed from them must equal the recorded scores within 0.01. A run that cannot be re-scored yet (made before the
per-set files existed) may be listed in PENDING while it is re-made with the same recipe and seed; a run in PENDING that
has its files fails the check too, so the list cannot go stale. It is empty: every committed run re-scores.
Prints one line per problem and a closing 'N passed, N failed' line; exits 1 on any failure. CI runs it.
"""
import json, sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

PENDING = set()   # names of run folders being re-made; see above
TOL = 0.01

def check(d:Path) -> list[str]:
    "The problems of one run folder ([] when every set re-scores)."
    from sacrebleu.metrics import BLEU, CHRF
    m, out = json.loads((d/'metrics.json').read_text()), []
    for name, s in (m.get('by_test_set') or {}).items():
        h, r = (d/'by_test_set'/f"{name.replace('/', '_')}.{k}.txt" for k in ('hyp', 'ref'))
        if not (h.is_file() and r.is_file()): out.append(f'{d.name}: {name}: no {h.name} / {r.name}'); continue
        hyp, ref = (p.read_text(encoding='utf-8').rstrip('\n').split('\n') for p in (h, r))
        if not len(hyp) == len(ref) == s['sentences']:
            out.append(f"{d.name}: {name}: {len(hyp)} hypotheses, {len(ref)} references, {s['sentences']} sentences recorded"); continue
        for metric, got in (('bleu', BLEU().corpus_score(hyp, [ref]).score), ('chrf', CHRF().corpus_score(hyp, [ref]).score)):
            if abs(got - s[metric]) > TOL: out.append(f'{d.name}: {name}: {metric} {got:.4f} re-scored, {s[metric]:.4f} recorded')
    if not m.get('by_test_set'): out.append(f'{d.name}: metrics.json has no by_test_set')
    return out

def main(runs_dir='runs/full'):
    runs = sorted(d for d in Path(runs_dir).iterdir() if (d/'metrics.json').is_file()
                  and json.loads((d/'metrics.json').read_text()).get('kind') == 'seq2seq'
                  and json.loads((d/'metrics.json').read_text()).get('status') == 'ok')
    todo = [d for d in runs if d.name not in PENDING]
    with ProcessPoolExecutor(2) as ex: problems = dict(zip(todo, ex.map(check, todo)))
    stale = [d.name for d in runs if d.name in PENDING and (d/'by_test_set').is_dir()]
    for d, ps in problems.items():
        for p in ps: print(p)
    for n in stale: print(f'{n}: has its per-set files now: take it out of PENDING')
    bad = sum(bool(ps) for ps in problems.values()) + len(stale)
    print(f'{len(todo)} translation runs re-scored ({len(runs) - len(todo)} pending re-making, listed in PENDING)')
    print(f'rescore: {len(todo) - sum(bool(ps) for ps in problems.values())} passed, {bad} failed')
    return 1 if bad else 0

if __name__ == '__main__': sys.exit(main(*sys.argv[1:]))
