"""What a wider attention head costs torch's CPU flash kernel: one causal forward and backward at T = 2,048 (4 heads, one
thread) for head widths 32, 33, 40 and 48. ALiBi's bias is linear in the key's position along a causal row, so it could ride
on one extra query/key dimension (q gets the slope, k the position) and keep the maskless causal kernel; this measures what
that extra dimension costs the kernel.

    python tools/bench_head_dim.py [--T 2048] [--reps 5]
"""
import argparse, time
import torch
import torch.nn.functional as F

def step(d, T, H=4, reps=5):
    q, k, v = (torch.randn(1, H, T, d, requires_grad=True) for _ in range(3))
    best = float('inf')
    for _ in range(reps + 1):                       # the first is a warm-up
        t = time.perf_counter()
        F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=32 ** -0.5).sum().backward()
        best = min(best, time.perf_counter() - t)
    return best

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--T', type=int, default=2048); ap.add_argument('--reps', type=int, default=5)
    a = ap.parse_args()
    torch.set_num_threads(1)
    base = step(32, a.T, reps=a.reps)
    print(f"torch {torch.__version__}, T = {a.T}, 4 heads, one thread; causal flash forward + backward, best of {a.reps}")
    print('| head width | ms | ÷ width 32 |\n|---|---|---|')
    for d in (32, 33, 40, 48):
        t = base if d == 32 else step(d, a.T, reps=a.reps)
        print(f'| {d} | {t * 1e3:.1f} | {t / base:.2f} |')
