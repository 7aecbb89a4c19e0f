"""Time CoPE's training step against pe='none' (the bench's LM: d 128, 4 heads, 4 layers, vocab 1000), interleaved.

`python tools/bench_cope.py [--T 512] [--batch 4] [--reps 7] [--repeat 3] [--threads 2] [--pes none cope cope_old] [--profile]`
prints the median ratio cope/none of each repetition (rounds shuffled by `posenc.bench.time_rounds`), and their range.
`cope_old` is CoPE on its previous training path (its dense term `qk_bias` on the fused attention, `own_attention`
off), so that one run compares both.
"""
import argparse, statistics, torch
from posenc.bench import bench_config, make_step, time_rounds

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--T', type=int, default=512)
    ap.add_argument('--batch', type=int, default=4)          # the committed bench used tokens=2048: batch 4 at T=512
    ap.add_argument('--reps', type=int, default=7)
    ap.add_argument('--warmup', type=int, default=2)
    ap.add_argument('--repeat', type=int, default=3)
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--pes', nargs='+', default=['none', 'cope'])
    ap.add_argument('--profile', action='store_true', help='profile one cope step instead (torch.profiler)')
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    def build(pe):
        model, step = make_step(bench_config('posenc', 'lm', pe.removesuffix('_old'), a.T, a.batch))
        if pe.endswith('_old'): model.dec.pe.own_attention = False     # the scheme's terms on the usual paths
        return step
    steps = {pe: build(pe) for pe in a.pes}
    if a.profile:
        from torch.profiler import profile, ProfilerActivity
        for _ in range(2): steps['cope']()
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            for _ in range(3): steps['cope']()
        print(prof.key_averages().table(sort_by='self_cpu_time_total', row_limit=30))
        return
    ratios = {pe: [] for pe in a.pes if pe != 'none'}
    for r in range(a.repeat):
        t = time_rounds(steps, a.warmup, a.reps, seed=r)
        med = {pe: statistics.median(v) for pe, v in t.items()}
        print(f'rep {r}: ' + ', '.join(f'{pe} {1e3 * m:.1f} ms' for pe, m in med.items())
              + ''.join(f', {pe}/none {med[pe] / med["none"]:.3f}' for pe in ratios), flush=True)
        for pe in ratios: ratios[pe].append(med[pe] / med['none'])
    for pe, rs in ratios.items():
        print(f'{pe}/none at T={a.T}, batch {a.batch}: median {statistics.median(rs):.3f}, range {min(rs):.3f}–{max(rs):.3f} over {len(rs)} repetitions')

if __name__ == '__main__': main()
