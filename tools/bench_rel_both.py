"""Which CPU route clipped relative terms without a causal mask should take at each length (the encoders of XL and DeBERTa):
the general fused path (`_FusedAttention`, the terms written into each block's mask and the backward's products written
out) or `_FarRelBothSides` (the 2K − 1 nearest keys written out, the far keys of each side on one causal call of the
flash kernel), taken from `REL_MIN_T` on. Attention alone with its backward, 4 heads of 32, 2 batch rows, K = 16,
random q-side (`rel`, XL's and DeBERTa's) and key-side (`krel`, DeBERTa's) terms; rounds alternate the routes and none
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
        def fused(r, kr):
            keep = PK.REL_MIN_T; PK.REL_MIN_T = float('inf')
            try: return PK.fused_attention(q, k, v, rel=r, krel=kr, causal=False, K=K)
            finally: PK.REL_MIN_T = keep
        routes = {'none': lambda r, kr: F.scaled_dot_product_attention(q, k, v),
                  'fused': fused, 'both': lambda r, kr: PK._FarRelBothSides.apply(q, k, v, r, kr, K)}
        for terms, (r, kr) in (('rel', (rel, None)), ('rel + krel', (rel, krel))):
            diff = (fused(r, kr) - routes['both'](r, kr)).abs().max().item()
            ratios = {n: [] for n in ('fused', 'both')}
            for f in routes.values(): f(r, kr).backward(g)   # a first call of each: allocations, the kernel's buffers
            for _ in range(a.reps):
                t = {n: timed(lambda: f(r, kr).backward(g), clock) for n, f in routes.items()}
                for n in ratios: ratios[n].append(t[n] / t['none'])
            print(f"| {T:,} | {terms} | {statistics.median(ratios['fused']):.2f} | {statistics.median(ratios['both']):.2f} | {diff:.1e} |")

if __name__ == '__main__':
    main()
