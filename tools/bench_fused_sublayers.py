"""A/B timing of the fused feed-forward and residual dropout (`posenc.models.feed_forward`, `residual`) on the
`full` profile's ted-tatoeba recipe, real batches, interleaved so that a busy machine slows both sides alike.

`python tools/bench_fused_sublayers.py [--threads 1] [--pe rope] [--rounds 5] [--steps 4]` prints, per round, the
median step time with the fused functions and with the modules they replace, and the median ratio. Needs the
ted-tatoeba corpora (`../shared/data`).
"""
import argparse, statistics, time
import torch
import posenc.models as M
from posenc.sweep import plan
from posenc.recipes import recipe_parts
from posenc.train import Trainer

PLAIN = dict(feed_forward=lambda ff, h: ff(h), residual=lambda d, x, f: x + d(f))
FUSED = dict(feed_forward=M.feed_forward, residual=M.residual)

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--pe', default='rope')
    ap.add_argument('--rounds', type=int, default=5)
    ap.add_argument('--steps', type=int, default=4)
    a = ap.parse_args()
    job = plan('full', pes=[a.pe], tasks=['ted-tatoeba'])[0]
    rp = recipe_parts('ted-tatoeba', a.pe, job.seed, **{**job.params, 'threads': a.threads})
    tr = Trainer(rp.model, rp.prep.get_batch, rp.train_cfg)
    tr.net.train()
    batches = [rp.prep.get_batch(i) for i in range(a.steps)]
    def run(fns):
        for k, f in fns.items(): setattr(M, k, f)
        ts = []
        for b in batches:
            t0 = time.perf_counter(); tr.train_step(b); ts.append(time.perf_counter() - t0)
        return statistics.median(ts)
    run(FUSED); run(PLAIN)                                   # warm-up
    ratios = []
    for r in range(a.rounds):
        order = [('fused', FUSED), ('plain', PLAIN)][::(-1) ** r]
        t = {name: run(fns) for name, fns in order}
        ratios.append(t['fused'] / t['plain'])
        print(f"round {r}: fused {1e3 * t['fused']:.0f} ms, plain {1e3 * t['plain']:.0f} ms, fused/plain {ratios[-1]:.3f}", flush=True)
    print(f"ted-tatoeba {a.pe}, {a.threads} thread(s): fused/plain median {statistics.median(ratios):.3f} "
          f"(range {min(ratios):.3f}–{max(ratios):.3f}, {a.rounds} rounds of {a.steps} steps)")

if __name__ == '__main__': main()
