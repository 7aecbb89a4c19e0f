"""Forward + backward of attention over short sequences on the CPU: SDPA's flash kernel against the explicit softmax(QKᵀ)V.

`python tools/bench_short_attention.py [--threads 1]` prints milliseconds per call for a batch of 4,096 tokens in 4 heads
of 32, with a padding mask and causal, at T = 9, 20, 40 and 80: the measurement behind `posenc.attention.SHORT_KEYS`.
"""
import argparse, time
import torch, torch.nn.functional as F


def timed(f, reps=20):
    for _ in range(3): f()
    t0 = time.perf_counter()
    for _ in range(reps): f()
    return (time.perf_counter() - t0) / reps * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--threads', type=int, default=1)
    torch.set_num_threads(ap.parse_args().threads)
    print('| B × T | padded: flash | padded: explicit | causal: flash | causal: explicit |\n|---|---|---|---|---|')
    for B, T in ((455, 9), (204, 20), (100, 40), (50, 80)):
        q, k, v = (torch.randn(B, 4, T, 32, requires_grad=True) for _ in range(3))
        pad = torch.zeros(B, 1, 1, T); pad[: B // 2, ..., -2:] = float('-inf')
        cm = torch.zeros(T, T).masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float('-inf'))
        g = torch.randn(B, 4, T, 32)
        flash = lambda causal: F.scaled_dot_product_attention(q, k, v, attn_mask=None if causal else pad, is_causal=causal).backward(g)
        explicit = lambda causal: (((q @ k.transpose(-1, -2)) * 32 ** -0.5 + (cm if causal else pad)).softmax(-1) @ v).backward(g)
        print(f'| {B} × {T} | ' + ' | '.join(f'{timed(lambda: f(c)):.1f} ms' for c in (False, True) for f in (flash, explicit)) + ' |')


if __name__ == '__main__': main()
