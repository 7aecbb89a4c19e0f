"""Which CPU route a Toeplitz bias should take at each length: the general fused path (the bias read in place by the flash
kernel, `STRIDED_ROWS` a call) or the scheme's own route, taken from `LINEAR_MIN_T` / `FAR_MIN_T` on (ALiBi: the key term on an
extra query/key dimension; T5: the far keys unmasked under the last bucket's value). Attention alone, causal, 4 heads of
32, one batch row; rounds alternate the routes (and none, the flash kernel without a bias) so that a slow spell of the
machine lands on all of them. Prints each route's median time ÷ none's in the same round.

    python tools/bench_bias_paths.py [--lengths 1024 2048 4096] [--pes alibi t5] [--reps 5] [--threads 1]
"""
import argparse, statistics, time
import torch
import torch.nn.functional as F
import posenc.kernels as K
from posenc.encodings import make_pe

def timed(f):
    t = time.perf_counter(); f(); return time.perf_counter() - t

def own_route(pe, T, q, k, v):
    "The scheme's own route, whatever the length limits say: T5's far keys under the last bucket, ALiBi's extra dimension."
    b = pe.bias(T, T)
    bk = getattr(b, 'buckets', None)
    if bk is not None:
        D, far = K.far_from(bk[1], T)
        return K._FarBiasAttention.apply(q, k, v, bk[0], bk[1], far, D, K.FAR_ROWS)
    s = K.linear_slope(b.toeplitz.to(q.dtype), T)
    if s is None: raise ValueError(f"{pe.name}: neither T5's buckets nor a linear bias, so it has no route of its own")
    return K._KeyBiasAttention.apply(q, k, v, s, torch.arange(T, dtype=q.dtype), K.LINEAR_ROWS)

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--lengths', type=int, nargs='+', default=[1024, 2048, 4096])
    ap.add_argument('--pes', nargs='+', default=['alibi', 't5'])
    ap.add_argument('--reps', type=int, default=5); ap.add_argument('--threads', type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    H, d = 4, 32
    print(f"torch {torch.__version__}, {a.threads} thread(s), attention of 4 heads × 32, causal; median over {a.reps} rounds "
          f"of time ÷ none's in the same round (none: the maskless causal kernel)")
    print('| scheme | T | step | own route ÷ none | fused path ÷ none |\n|---|---|---|---|---|')
    limits = (K.LINEAR_MIN_T, K.FAR_MIN_T)
    K.LINEAR_MIN_T = K.FAR_MIN_T = float('inf')                              # fused_attention: the fused path itself
    try:
        for T in a.lengths:
            torch.manual_seed(0)
            for pe_name in a.pes:
                pe = make_pe(pe_name, H * d, H, causal=True)
                for grad in (True, False):
                    q, k, v = (torch.randn(1, H, T, d, requires_grad=grad) for _ in range(3))
                    go = torch.randn(1, H, T, d)
                    def run(route):
                        def f():
                            with torch.set_grad_enabled(grad):
                                if route == 'none': o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                                elif route == 'own': o = own_route(pe, T, q, k, v)
                                else: o = K.fused_attention(q, k, v, bias=pe.bias(T, T), causal=True)
                                if grad: o.backward(go)
                        return f
                    fs = {r: run(r) for r in ('none', 'own', 'fused')}
                    for f in fs.values(): f()                                    # warm-up
                    ratios = {'own': [], 'fused': []}
                    for _ in range(a.reps):
                        t = {r: timed(f) for r, f in fs.items()}
                        for r in ratios: ratios[r].append(t[r] / t['none'])
                    med = {r: statistics.median(x) for r, x in ratios.items()}
                    print(f"| {pe_name} | {T:,} | {'forward + backward' if grad else 'forward'} | {med['own']:.2f} | {med['fused']:.2f} |", flush=True)
    finally: K.LINEAR_MIN_T, K.FAR_MIN_T = limits

if __name__ == '__main__': main()
