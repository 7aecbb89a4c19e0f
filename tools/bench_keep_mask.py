"""The dropout mask's random draws: `random_(-2⁶³, 2⁶³ − 1)` (a modulo per draw) against the full 64-bit draws with the top
bit flipped (`posenc.models.keep_mask`), which are the same bits.

`python tools/bench_keep_mask.py [ROUNDS]` times both on one thread, in process CPU time, for the mask of a ted-tatoeba
feed-forward (4,096 × 512), alternating the two forms ROUNDS times (default 4), and checks that they draw the same bits.
"""
import sys, time, torch

def timed(f, reps=50):
    f(); t0 = time.process_time()
    for _ in range(reps): f()
    return (time.process_time() - t0) / reps * 1e3

def main():
    torch.set_num_threads(1)
    rounds, n = int(sys.argv[1]) if len(sys.argv) > 1 else 4, 4096 * 512 // 4
    r = torch.empty(n, dtype=torch.int64)
    modulo = lambda: r.random_(-2 ** 63, 2 ** 63 - 1)
    flipped = lambda: r.random_(-2 ** 63, None).bitwise_xor_(-2 ** 63)
    torch.manual_seed(0); a = modulo().clone(); torch.manual_seed(0); b = flipped().clone()
    print(f'the same bits: {torch.equal(a, b)}')
    for i in range(rounds):
        print(f'round {i + 1}: random_(-2**63, 2**63 - 1) {timed(modulo):.2f} ms, '
              f'random_(-2**63, None) + top bit flipped {timed(flipped):.2f} ms')

if __name__ == '__main__': main()
