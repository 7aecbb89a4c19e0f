"""CPU primitives of a training step, each against the form it replaced, timed on one thread in process CPU time.

`python tools/bench_cpu_primitives.py [ROUNDS]` prints:
- **softmax over short rows**: torch's `s.softmax(-1)` against `posenc.attention.last_softmax`, forward and backward, for
  the attention scores of a ted-tatoeba batch (4 heads, 1,636 sentences × heads, Tk queries and keys) at Tk from 4 to 32,
  and which form `last_softmax` takes at each length (`SHORT_SOFTMAX`). Run it with `ATEN_CPU_CAPABILITY=avx2` to see an
  AVX2 machine's kernel.
- **the dropout mask's random draws**: `random_(-2⁶³, 2⁶³ − 1)` (a modulo per draw) against the full 64-bit draws with
  the top bit flipped (`posenc.models.keep_mask`), for the mask of a ted-tatoeba feed-forward (4,096 × 512), ROUNDS
  times alternated (default 4), after checking that both draw the same bits.
- **the native kernels** (`posenc.kernels`) against the torch paths (`torch_paths()`), ROUNDS times alternated: a whole
  float mask of that feed-forward (4,095 × 512, kept value 1/(1 − p)); the cross-entropy's max, exp and sum over one
  block of logits (256 × 4,000); and, with `--step` (needs the ted-tatoeba corpora, `../shared/data`), the time a real
  training step of the full profile's ted-tatoeba recipe (no encoding) spends drawing and applying its dropout masks
  (`posenc.models._keep` and `_keep_apply`, timed around), with the number of 64-bit draws a step.
"""
import sys, time, torch
from posenc.attention import SHORT_SOFTMAX, last_softmax
from posenc import kernels, models

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

def native(rounds):
    if kernels.native_lib() is None: return print(f'native kernels {kernels.native_status()}')
    t = 6554; s = 65536 / (65536 - t)
    mask = lambda: models.keep_mask((4095, 512), t, dtype=torch.float32, value=s)
    z = torch.randn(256, 4000)
    def ce_torch(): m = z.amax(1, keepdim=True); z.sub_(m).exp_().sum(1, keepdim=True)
    m_, s_ = torch.empty(256), torch.empty(256)
    ce_native = lambda: kernels.native_lib().exp_rows(z.data_ptr(), 256, 4000, m_.data_ptr(), s_.data_ptr())
    for i in range(rounds):
        with kernels.torch_paths(): a, c = timed(mask), timed(ce_torch)
        b, d = timed(mask), timed(ce_native)
        print(f'round {i + 1}: dropout mask 4,095 x 512: torch {a:.2f} ms, native {b:.2f} ms; '
              f'cross-entropy block 256 x 4,000 (max, exp, sum): torch {c:.2f} ms, native {d:.2f} ms')

def masks_in_step(rounds, steps=10):
    from posenc.sweep import plan
    from posenc.recipes import recipe_parts
    from posenc.train import Trainer
    acc = dict(s=0., draws=0, depth=0)
    def timing(f):
        def g(x, t, rows, *a):
            acc['depth'] += 1; t0 = time.process_time()
            try: return f(x, t, rows, *a)
            finally:
                acc['depth'] -= 1
                if acc['depth'] == 0:   # _keep_apply may call _keep: count the outer call only
                    acc['s'] += time.process_time() - t0
                    acc['draws'] += ((x.numel() if rows is None else rows.B * rows.T * x.shape[-1]) + 3) // 4
        return g
    models._keep, models._keep_apply = timing(models._keep), timing(models._keep_apply)
    job = plan('full', pes=['none'], tasks=['ted-tatoeba'])[0]
    rp = recipe_parts('ted-tatoeba', 'none', job.seed, **{**job.params, 'threads': 1})
    tr = Trainer(rp.model, rp.prep.get_batch, rp.train_cfg); tr.net.train()
    batches = [rp.prep.get_batch(i) for i in range(steps + 2)]
    for b in batches[:2]: tr.train_step(b)
    def run():
        acc.update(s=0., draws=0); t0 = time.process_time()
        for b in batches[2:]: tr.train_step(b)
        return 1e3 * acc['s'] / steps, 1e3 * (time.process_time() - t0) / steps, acc['draws'] / steps
    for i in range(rounds):
        with kernels.torch_paths(): a = run()
        b = run()
        print(f'round {i + 1}: dropout masks in a ted-tatoeba step ({a[2] / 1e6:.2f} million draws): '
              f'torch {a[0]:.1f} of {a[1]:.0f} ms, native {b[0]:.1f} of {b[1]:.0f} ms')

if __name__ == '__main__':
    torch.set_num_threads(1)
    args = [a for a in sys.argv[1:] if a != '--step']
    rounds = int(args[0]) if args else 4
    softmax_rows()
    mask_draws(rounds)
    native(rounds)
    if '--step' in sys.argv: masks_in_step(rounds)
