"""The training losses of the full profile's ted-tatoeba recipe with posenc's native CPU kernels and without them.

`python tools/native_check.py PE STEPS [SEED]` trains STEPS steps from the same seed twice, in two processes side by
side (one thread each): once as posenc runs by default and once with `POSENC_NATIVE=0` (the torch paths). It prints the
training loss of both at every 10% of the steps and their largest difference. The dropout masks are the same bits on
both paths; the cross-entropy's exponentials differ in rounding, so the two losses drift apart only as rounding
differences grow in training. Needs the ted-tatoeba corpora (`../shared/data`).
"""
import json, os, subprocess, sys

CHILD = r'''
import json, sys, torch
from posenc.sweep import plan
from posenc.recipes import recipe_parts
from posenc.train import Trainer
from posenc.kernels import native_status
pe, steps, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
job = plan('full', pes=[pe], tasks=['ted-tatoeba'])[0]
rp = recipe_parts('ted-tatoeba', pe, seed, **{**job.params, 'threads': 1})
tr = Trainer(rp.model, rp.prep.get_batch, rp.train_cfg); tr.net.train()
losses = [tr.train_step(rp.prep.get_batch(i))['loss'] for i in range(steps)]
print(json.dumps(dict(native=native_status(), losses=losses)))
'''


def main():
    pe, steps = sys.argv[1], int(sys.argv[2])
    seed = sys.argv[3] if len(sys.argv) > 3 else '0'
    procs = {name: subprocess.Popen([sys.executable, '-c', CHILD, pe, str(steps), seed], stdout=subprocess.PIPE, text=True,
                                    env={**os.environ, 'OMP_NUM_THREADS': '1', **env})
             for name, env in (('native', {}), ('torch', {'POSENC_NATIVE': '0'}))}
    out = {}
    for name, p in procs.items():
        stdout, _ = p.communicate()
        if p.returncode: sys.exit(f'{name} run failed ({p.returncode})')
        out[name] = json.loads(stdout.strip().splitlines()[-1])
    a, b = out['native']['losses'], out['torch']['losses']
    print(f"ted-tatoeba {pe}, seed {seed}, {steps} steps; native kernels: {out['native']['native']}; other run: {out['torch']['native']}")
    print('step   loss (native)   loss (torch paths)   difference')
    for i in sorted({max(0, steps * k // 10 - 1) for k in range(11)}):
        print(f'{i + 1:5d}   {a[i]:13.6f}   {b[i]:18.6f}   {a[i] - b[i]:+.2e}')
    d = [abs(x - y) for x, y in zip(a, b)]
    first = next((i + 1 for i, x in enumerate(d) if x > 0), None)
    print(f'largest difference {max(d):.2e} (step {d.index(max(d)) + 1}); first step that differs: {first}')


if __name__ == '__main__': main()
