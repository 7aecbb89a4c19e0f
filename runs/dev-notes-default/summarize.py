"""Summarise the probes that chose the `default` profile: `python runs/dev-notes-default/summarize.py` prints, for each
probe folder here, every run's measure, the task's trivial baseline and its wall time."""
import json, sys
from pathlib import Path

HERE = Path(__file__).parent
def measure(m):
    if m['kind'] == 'seq2seq': return f"BLEU {m['bleu']['beam']:.2f} (source copied {m['baseline']['copy_source']['bleu']:.2f})"
    if m['kind'] == 'synthetic': return f"accuracy ≤ train {m['acc_in_dist']:.3f}"
    base = 'bigram' if m['kind'] == 'lm' else 'unigram'
    return f"loss {m['val_loss']:.3f} ({base} {m['baseline'][base]:.3f})"

for probe in sorted(p for p in HERE.iterdir() if p.is_dir()):
    rows = [json.loads(f.read_text()) for f in sorted(probe.glob('*/metrics.json'))]
    print(f"\n## {probe.name}: {len(rows)} runs, {sum(m['wall_s'] for m in rows) / 60:.1f} min of run wall time\n")
    print('| run | steps | measure | wall s |\n|---|---|---|---|')
    for m in rows: print(f"| {m['task']} {m['pe']} | {m['steps']} | {measure(m)} | {m['wall_s']:.0f} |")
