"""Two CPU primitives of a training step, each against the form it replaced, timed on one thread in process CPU time.

`python tools/bench_cpu_primitives.py [ROUNDS]` prints:
- **softmax over short rows**: torch's `s.softmax(-1)` against `posenc.attention.last_softmax`, forward and backward, for
  the attention scores of a ted-tatoeba batch (4 heads, 1,636 sentences × heads, Tk queries and keys) at Tk from 4 to 32,
  and which form `last_softmax` takes at each length (`SHORT_SOFTMAX`). Run it with `ATEN_CPU_CAPABILITY=avx2` to see an
  AVX2 machine's kernel.
- **the dropout mask's random draws**: `random_(-2⁶³, 2⁶³ − 1)` (a modulo per draw) against the full 64-bit draws with
  the top bit flipped (`posenc.models.keep_mask`), for the mask of a ted-tatoeba feed-forward (4,096 × 512), ROUNDS
  times alternated (default 4), after checking that both draw the same bits.
"""
import sys, time, torch
from posenc.attention import SHORT_SOFTMAX, last_softmax

def timed(f, reps=40):
    f(); t0 = time.process_time()
    for _ in range(reps): f()
    return (time.process_time() - t0) / reps * 1e3

def softmax_rows():
    print(f'CPU capability {torch.backends.cpu.get_cpu_capability()}: last_softmax writes rows of fewer than {SHORT_SOFTMAX} out')
    for Tk in (4, 6, 8, 10, 12, 15, 16, 20, 24, 32):
        s = torch.randn(1636 * 4, Tk, Tk).requires_grad_(); g = torch.randn_like(s)
        a = timed(lambda: s.softmax(-1).backward(g))
        b = timed(lambda: last_softmax(s).backward(g))
        print(f'Tk = {Tk:2d}: torch softmax forward + backward {a:6.2f} ms, last_softmax {b:6.2f} ms'
              f'{"  (written out)" if Tk < SHORT_SOFTMAX else ""}')

def mask_draws(rounds):
    r = torch.empty(4096 * 512 // 4, dtype=torch.int64)
    modulo = lambda: r.random_(-2 ** 63, 2 ** 63 - 1)
    flipped = lambda: r.random_(-2 ** 63, None).bitwise_xor_(-2 ** 63)
    torch.manual_seed(0); a = modulo().clone(); torch.manual_seed(0); b = flipped().clone()
    print(f'dropout mask draws, the same bits: {torch.equal(a, b)}')
    for i in range(rounds):
        print(f'round {i + 1}: random_(-2**63, 2**63 - 1) {timed(modulo):.2f} ms, '
              f'random_(-2**63, None) + top bit flipped {timed(flipped):.2f} ms')

if __name__ == '__main__':
    torch.set_num_threads(1)
    softmax_rows()
    mask_draws(int(sys.argv[1]) if len(sys.argv) > 1 else 4)
