"""Softmax over short rows on the CPU: torch's kernel against `posenc.attention.last_softmax`, forward and backward.

`python tools/bench_short_softmax.py` times, on one thread in process CPU time, `s.softmax(-1)` and `last_softmax(s)`
followed by their backward, for attention scores of a ted-tatoeba batch (4 heads, 1,636 sentences × heads, Tk keys for
Tk queries) at Tk from 4 to 32, and prints which one `last_softmax` uses at each length (`SHORT_SOFTMAX`). Run it with
`ATEN_CPU_CAPABILITY=avx2` to see an AVX2 machine's kernel.
"""
import time, torch
from posenc.attention import SHORT_SOFTMAX, last_softmax

def timed(f, reps=40):
    f(); t0 = time.process_time()
    for _ in range(reps): f()
    return (time.process_time() - t0) / reps * 1e3

def main():
    torch.set_num_threads(1)
    print(f'CPU capability {torch.backends.cpu.get_cpu_capability()}: last_softmax writes rows of fewer than {SHORT_SOFTMAX} out')
    for Tk in (4, 6, 8, 10, 12, 15, 16, 20, 24, 32):
        s = torch.randn(1636 * 4, Tk, Tk).requires_grad_(); g = torch.randn_like(s)
        a = timed(lambda: s.softmax(-1).backward(g))
        b = timed(lambda: last_softmax(s).backward(g))
        print(f'Tk = {Tk:2d}: torch softmax forward + backward {a:6.2f} ms, last_softmax {b:6.2f} ms'
              f'{"  (written out)" if Tk < SHORT_SOFTMAX else ""}')

if __name__ == '__main__': main()
