"""Which CPU route clipped relative terms without a causal mask should take at each length (the encoders of XL, DeBERTa and Shaw):
the general fused path (`_FusedAttention`, the terms written into each block's mask and the backward's products written
out) or `_FarRelBothSides` (the 2K − 1 nearest keys written out, the far keys of each side on one causal call of the
flash kernel), taken from `REL_MIN_T` on. Attention alone with its backward, 4 heads of 32, 2 batch rows, K = 16,
random q-side (`rel`, XL's, DeBERTa's and Shaw's) and key-side (`krel`, DeBERTa's) terms, and Shaw's masses at each
clipped distance (with a gradient of their own, as its value term gives them); rounds alternate the routes and none
(the flash kernel without terms) so that a slow spell of the machine lands on all of them. Prints each route's median
time ÷ none's in the same round, and the largest difference between the two routes' outputs.

    python tools/bench_rel_both.py [--lengths 512 1024 2048 4096] [--reps 3] [--threads 1]
"""
import argparse, statistics, time
import torch
import torch.nn.functional as F
import posenc.kernels as PK

def timed(f, clock=time.perf_counter):
    t = clock(); f(); return clock() - t

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--lengths', type=int, nargs='+', default=[512, 1024, 2048, 4096])
    ap.add_argument('--reps', type=int, default=3)
    ap.add_argument('--threads', type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    clock = time.process_time if a.threads == 1 else time.perf_counter   # one thread: CPU time, steadier beside other work
    B, H, d, K = 2, 4, 32, 16
    print(f"# attention with its backward, B={B} H={H} d={d} K={K}, {a.threads} thread(s), median of {a.reps} rounds, "
          f"{'CPU' if a.threads == 1 else 'wall'} time ÷ none")
    print("| T | terms | fused path | both sides | largest |difference| of the outputs |")
    print("|---|---|---|---|---|")
    for T in a.lengths:
        torch.manual_seed(0)
        q, k, v = (torch.randn(B, H, T, d, requires_grad=True) for _ in range(3))
        rel, krel = (torch.randn(B, H, T, 2 * K + 1, requires_grad=True) for _ in range(2))
        g = torch.randn(B, H, T, d)
        gw = torch.randn(B, H, T, 2 * K + 1)
        def fused(r, kr, w=False):
            keep = PK.REL_MIN_T; PK.REL_MIN_T = float('inf')
            try: return PK.fused_attention(q, k, v, rel=r, krel=kr, causal=False, K=K, need_w=w)
            finally: PK.REL_MIN_T = keep
        routes = {'none': lambda r, kr, w: F.scaled_dot_product_attention(q, k, v),
                  'fused': fused, 'both': lambda r, kr, w: PK._FarRelBothSides.apply(q, k, v, r, kr, K, w)}
        def loss(out):   # the output's, and with the masses theirs too
            return (out[0] * g).sum() + (out[1] * gw).sum() if isinstance(out, tuple) else (out * g).sum()
        for terms, (r, kr, w) in (('rel', (rel, None, False)), ('rel + krel', (rel, krel, False)), ('rel + masses', (rel, None, True))):
            o1, o2 = fused(r, kr, w), routes['both'](r, kr, w)
            diff = max((a_ - b_).abs().max().item() for a_, b_ in zip(*(o if isinstance(o, tuple) else (o,) for o in (o1, o2))))
            ratios = {n: [] for n in ('fused', 'both')}
            for f in routes.values(): loss(f(r, kr, w)).backward()   # a first call of each: allocations, the kernel's buffers
            for _ in range(a.reps):
                t = {n: timed(lambda: loss(f(r, kr, w)).backward(), clock) for n, f in routes.items()}
                for n in ratios: ratios[n].append(t[n] / t['none'])
            print(f"| {T:,} | {terms} | {statistics.median(ratios['fused']):.2f} | {statistics.median(ratios['both']):.2f} | {diff:.1e} |")

if __name__ == '__main__':
    main()
