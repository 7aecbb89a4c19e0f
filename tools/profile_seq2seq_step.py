"""Profile training steps of the `full` profile's ted-tatoeba recipe on its real batches (torch.profiler).

`python tools/profile_seq2seq_step.py [--threads 1] [--pe rope] [--shapes]` prints the median step time and target
tokens/s of 10 steps, then the operators of 2 more steps by self CPU time (`--shapes`: grouped by input shapes): where a
translation step spends its time. Needs the ted-tatoeba corpora (`../shared/data`).
"""
import argparse, statistics, time
import torch
from torch.profiler import profile, ProfilerActivity
from posenc.sweep import plan
from posenc.recipes import recipe_parts
from posenc.train import Trainer


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--pe', default='rope')
    ap.add_argument('--shapes', action='store_true', help='group the operators by input shapes')
    a = ap.parse_args()
    job = plan('full', pes=[a.pe], tasks=['ted-tatoeba'])[0]
    rp = recipe_parts('ted-tatoeba', a.pe, job.seed, **{**job.params, 'threads': a.threads})
    tr = Trainer(rp.model, rp.prep.get_batch, rp.train_cfg)
    tr.net.train()
    batches = [rp.prep.get_batch(i) for i in range(14)]
    for b in batches[:2]: tr.train_step(b)
    ts, tok = [], 0
    for b in batches[2:12]:
        t0 = time.perf_counter(); tok += tr.train_step(b)['tokens']; ts.append(time.perf_counter() - t0)
    print(f'ted-tatoeba {a.pe}, {a.threads} thread(s): step median {1e3 * statistics.median(ts):.0f} ms, {tok / sum(ts):,.0f} target tokens/s')
    with profile(activities=[ProfilerActivity.CPU], record_shapes=a.shapes) as prof:
        for b in batches[12:]: tr.train_step(b)
    print(prof.key_averages(group_by_input_shape=a.shapes).table(sort_by='self_cpu_time_total', row_limit=35,
                                                                 max_name_column_width=40, max_shapes_column_width=70))


if __name__ == '__main__': main()
