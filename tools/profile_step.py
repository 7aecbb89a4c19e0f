"""Where a scheme's training step spends its time: torch.profiler over the bench's step, one table per scheme.

    python tools/profile_step.py --device cuda --T 4096 --pes none fire deberta cope fox shaw
    python tools/profile_step.py --T 512 --pes none fire          # on the CPU (fp32, one thread)

Builds the configuration `posenc bench` times (decoder LM, or --kind seq2seq; 4 layers, d = 128, 4 heads, 16,384
tokens a step), runs --warmup steps (compilation, caches), then profiles --steps steps and prints the operators that
took the most self time on the device (CUDA kernels on a GPU, CPU operators otherwise), with their share of the step.
It answers "which kernel makes FIRE 59× none on the H200" before anyone changes code for it. --out writes the tables
to a text file as well.
"""
import argparse, sys, time
import torch
from torch.profiler import profile, ProfilerActivity
from posenc.bench import bench_config, make_step

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument('--pes', nargs='+', default=['none', 'fire'])
p.add_argument('--kind', default='lm', choices=['lm', 'seq2seq'])
p.add_argument('--T', type=int, default=2048)
p.add_argument('--tokens', type=int, default=16384)
p.add_argument('--device', default='cpu')
p.add_argument('--threads', type=int, default=1, help='torch threads on the CPU')
p.add_argument('--warmup', type=int, default=3)
p.add_argument('--steps', type=int, default=3)
p.add_argument('--rows', type=int, default=15, help='operators listed per scheme')
p.add_argument('--out', default=None)
a = p.parse_args()

torch.set_num_threads(a.threads)
cuda = a.device.startswith('cuda')
acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
sort = 'self_device_time_total' if cuda else 'self_cpu_time_total'
sync = (lambda: torch.cuda.synchronize()) if cuda else (lambda: None)
lines = [f"# {torch.cuda.get_device_name() if cuda else 'CPU, %d thread(s)' % a.threads}, torch {torch.__version__}, "
         f"{a.kind} T={a.T}, {a.tokens} tokens a step, {a.steps} profiled steps after {a.warmup}"]
wall = {}
for pe in a.pes:
    c = bench_config('posenc', a.kind, pe, a.T, max(1, a.tokens // a.T), device=a.device)
    try: _, step = make_step(c)
    except Exception as e:
        lines.append(f"\n## {pe}: not built ({type(e).__name__}: {e})"); continue
    for _ in range(a.warmup): step()
    sync(); t0 = time.perf_counter()
    with profile(activities=acts) as prof:
        for _ in range(a.steps): step()
        sync()
    wall[pe] = (time.perf_counter() - t0) / a.steps
    ev = prof.key_averages()
    total = sum(getattr(e, sort) for e in ev)
    rows = sorted(ev, key=lambda e: getattr(e, sort), reverse=True)[:a.rows]
    lines.append(f"\n## {pe}: {1e3 * wall[pe]:.1f} ms a step (profiled, so slower than the bench)"
                 + (f", {wall[pe] / wall['none']:.2f}× none" if 'none' in wall and pe != 'none' else ''))
    lines.append(f"| operator | calls | self time ms a step | share |\n|---|---|---|---|")
    for e in rows:
        t = getattr(e, sort) / 1e3 / a.steps
        lines.append(f"| `{e.key[:90]}` | {e.count // a.steps} | {t:.2f} | {getattr(e, sort) / max(total, 1):.1%} |")
    del step
    if cuda: torch.cuda.empty_cache()
    print('\n'.join(lines[-len(rows) - 2:]), flush=True)
if a.out:
    open(a.out, 'w').write('\n'.join(lines) + '\n')
print(f"\nwrote {a.out}" if a.out else '', file=sys.stderr)
