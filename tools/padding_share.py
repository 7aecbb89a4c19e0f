"""Share of real (not padding) tokens in a full-profile recipe's training batches.

`python tools/padding_share.py [TASK] [STEPS]` (default: ted-tatoeba, 200) builds the batches of the first STEPS steps of
TASK at the `full` profile's recipe, exactly as a run draws them, and prints, for each tensor of the batch, the real
tokens as a share of its padded size: the work a padded layout spends on padding. Needs the task's corpora
(`../shared/data`); it trains nothing.
"""
import sys
from posenc.sweep import plan
from posenc.recipes import recipe_parts
from posenc.tokenize import PAD_ID

def main():
    task = sys.argv[1] if len(sys.argv) > 1 else 'ted-tatoeba'
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    job = plan('full', pes=['none'], tasks=[task])[0]
    rp = recipe_parts(task, 'none', job.seed, **job.params)
    real, size = {}, {}
    for s in range(steps):
        for k, t in rp.prep.get_batch(s).items():
            if k in ('src', 'tgt_in', 'x'):
                real[k] = real.get(k, 0) + int((t != PAD_ID).sum()); size[k] = size.get(k, 0) + t.numel()
    for k in real:
        print(f'{task}, first {steps} steps: {k} {real[k] / size[k]:.1%} real ({real[k]:,} of {size[k]:,} tokens)')

if __name__ == '__main__': main()
