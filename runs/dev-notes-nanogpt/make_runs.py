# nanoGPT's shakespeare_char CPU recipe with posenc's decoder-only LM, scored on the FULL validation split.
# One run at a time, one thread: `PYTHONPATH=$PWD OMP_NUM_THREADS=1 python runs/dev-notes-nanogpt/make_runs.py VARIANT [PE] [SEED]`
# `... make_runs.py summary` rewrites summary.json / summary.md from the JSON files here.
# Variants other than `default` undo or change one thing at a time on top of the library's current defaults
# (applied after `build_model`, so the training path is posenc's own: LMBatcher, Trainer, lm_metrics).
import json, math, sys, time
from pathlib import Path
import torch, torch.nn as nn

HERE = Path(__file__).parent
# nanoGPT config/train_shakespeare_char.py with its "on macbook" overrides
RECIPE = dict(d_model=128, n_heads=4, n_layers=4, block_size=64, batch_size=12, steps=2000, lr=1e-3, min_lr_ratio=0.1,
              warmup=100, weight_decay=0.1, dropout=0.0, betas=(0.9, 0.99), clip=1.0, schedule='cosine')

def gpt2_init(model, n_layers, std=0.02):
    "nanoGPT's init: N(0, 0.02) for every Linear and Embedding, zero biases, residual projections 0.02/sqrt(2L)."
    for name, m in model.named_modules():
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, std=std)
            if m.bias is not None: nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Embedding): nn.init.normal_(m.weight, std=std)
    for name, p in model.named_parameters():
        if name.endswith('attn.out.weight') or name.endswith('ff.3.weight'): nn.init.normal_(p, std=std / math.sqrt(2 * n_layers))

# each variant: a dict of changes (see `apply`); `default` is whatever the library does today
VARIANTS = {
    'default': {},                                             # whatever the library does when the script runs
    'before': dict(emb_scale=128 ** 0.5),                      # the old default: token embeddings scaled by √d
    'after': dict(),                                           # the library's default after the fix (no √d for the LM)
    'untied': dict(emb_scale=128 ** 0.5, untie=True),           # √d kept, output projection not tied
    'pe_std1': dict(emb_scale=128 ** 0.5, pe_std=1.0),         # √d kept, the table started on the tokens' scale
    'nanogpt_like': dict(gpt2=True, emb_scale=1.0, emb_std=0.02, pe_std=0.02, decay_pe=True, eps=1e-8),
}

DESCR = {'before': 'old default: √d on tied embeddings', 'after': 'no √d (the new DecoderLM default)',
         'pe_std1': '√d kept, table started at std 1 (the tokens\' scale)', 'untied': '√d kept, output projection untied',
         'nanogpt_like': "nanoGPT's init: N(0, 0.02), residual 0.02/√(2L), no √d, tables decayed, eps 1e-8"}

def apply(model, v, n_layers):
    if v.get('gpt2'): gpt2_init(model, n_layers)
    if 'emb_std' in v: nn.init.normal_(model.emb.weight, std=v['emb_std'])
    if 'emb_scale' in v: model.scale = v['emb_scale']
    if 'pe_std' in v and hasattr(model.dec.pe, 'table'): nn.init.normal_(model.dec.pe.table, std=v['pe_std'])
    if v.get('no_bias'):    # nanoGPT's bias=False: Linear and LayerNorm biases fixed at zero
        for m in model.modules():
            if isinstance(m, (nn.Linear, nn.LayerNorm)) and m.bias is not None: nn.init.zeros_(m.bias); m.bias.requires_grad_(False)

def run(variant='default', pe='learnable', seed=0, tag=None, **over):
    torch.set_num_threads(1)
    from posenc.data import tinyshakespeare
    from posenc.tokenize import CharTokenizer, LMBatcher
    from posenc.models import build_model, ModelConfig
    from posenc.train import TrainConfig, Trainer, make_optimizer, seed_everything
    from posenc.evaluate import lm_metrics
    v, r = VARIANTS[variant], {**RECIPE, **over}
    name = f"{tag or variant}__{pe}__s{seed}"
    out = HERE/f'{name}.json'
    if out.exists(): print('skip', name); return json.loads(out.read_text())
    corpus = tinyshakespeare()
    tok = CharTokenizer.from_text(corpus.train + corpus.valid)
    tr, va = (torch.tensor(tok.encode(t)) for t in (corpus.train, corpus.valid))
    T = r['block_size']
    batcher = LMBatcher(tr, T, r['batch_size'], seed)
    seed_everything(seed)
    mcfg = ModelConfig(vocab_size=tok.vocab_size, d_model=r['d_model'], n_heads=r['n_heads'], n_layers=r['n_layers'],
                       dropout=r['dropout'], pe=pe, max_len=T, tie_embeddings=not v.get('untie'))
    model = build_model('lm', mcfg)
    apply(model, v, r['n_layers'])
    tkw = dict(lr=r['lr'], betas=r['betas'], weight_decay=r['weight_decay'], schedule=r['schedule'], warmup=r['warmup'],
               min_lr_ratio=r['min_lr_ratio'], clip=r['clip'], max_steps=r['steps'], eval_every=500, log_every=100,
               seed=seed, device='cpu', progress=False)
    if 'eps' in v: tkw['eps'] = v['eps']
    tcfg = TrainConfig(**tkw)
    eval_fn = lambda m: lm_metrics(m, va, T, batch_size=64)     # the whole validation split, every target once
    trainer = Trainer(model, lambda s: dict(zip('xy', batcher.batch(s))), tcfg, eval_fn)
    if v.get('decay_pe'):   # every matrix decayed, positional tables included (nanoGPT's groups)
        ps = [p for p in model.parameters() if p.requires_grad]
        dec = [p for p in ps if p.ndim >= 2]; nod = [p for p in ps if p.ndim < 2]
        trainer.opt = type(trainer.opt)([dict(params=dec, weight_decay=tcfg.weight_decay), dict(params=nod, weight_decay=0.)],
                                        lr=tcfg.lr, betas=tcfg.betas, eps=tcfg.eps)
    t0 = time.perf_counter()
    s = trainer.fit(resume=False)
    wall = time.perf_counter() - t0
    tab = getattr(model.dec.pe, 'table', None)
    res = dict(variant=variant, tag=tag, pe=pe, seed=seed, changes=v, recipe={**r, 'betas': list(r['betas'])},
               val_loss=s['val_loss'], val_tokens=trainer.last_eval['val_tokens'], train_loss=s['train_loss'],
               wall_s=round(wall, 1), train_s=round(s['train_s'], 1), steps=s['steps'],
               curve=[dict(step=x['step'], val_loss=x['val_loss']) for x in trainer.log if x.get('val_loss') is not None],
               emb_rms_in=float(model.emb.weight.detach().pow(2).mean().sqrt() * model.scale),
               pe_table_rms=None if tab is None else float(tab.detach().pow(2).mean().sqrt()),
               torch=torch.__version__, threads=torch.get_num_threads())
    out.write_text(json.dumps(res, indent=1) + '\n')
    print(f"{name}: val {res['val_loss']:.4f} (tokens {res['val_tokens']}) train {res['train_loss']:.4f} wall {wall:.0f}s", flush=True)
    return res

def load_runs():
    "Every run JSON of this folder."
    return [json.loads(p.read_text()) for p in sorted(HERE.glob('*__s*.json'))]

def summary():
    rows = load_runs()
    keep = ['variant', 'pe', 'seed', 'val_loss', 'train_loss', 'wall_s', 'train_s', 'emb_rms_in', 'pe_table_rms', 'changes']
    (HERE/'summary.json').write_text(json.dumps([{k: r.get(k) for k in keep} for r in rows], indent=1) + '\n')
    by = {(r['variant'], r['pe'], r['seed']): r for r in rows}
    pes = [pe for pe in ('learnable', 'none', 'sinusoidal', 'rope', 'alibi') if ('before', pe, 0) in by or ('after', pe, 0) in by]
    f = lambda r: f"{r['val_loss']:.3f}" if r else '–'
    L = ['Full-validation loss (nats), nanoGPT shakespeare_char CPU recipe, seed 0 (nanoGPT itself: 1.898):', '',
         '| encoding | before (√d embeddings) | after (unscaled) | change |', '|---|---|---|---|']
    for pe in pes:
        b, a = by.get(('before', pe, 0)), by.get(('after', pe, 0))
        L.append(f"| {pe} | {f(b)} | {f(a)} | {a['val_loss'] - b['val_loss']:+.3f} |" if a and b else f"| {pe} | {f(b)} | {f(a)} | |")
    seeds = sorted(r['val_loss'] for r in rows if r['variant'] == 'after' and r['pe'] == 'learnable')
    if len(seeds) > 1: L += ['', f"learnable after, {len(seeds)} seeds: " + ', '.join(f'{x:.3f}' for x in seeds)]
    L += ['', 'Changes to the old defaults (learnable, seed 0; wall time on a shared 2-core machine, one thread):', '',
          '| variant | what | full-val loss | train loss | wall s |', '|---|---|---|---|---|']
    order = list(DESCR)
    L += [f"| {r['variant']} | {DESCR.get(r['variant'], r['changes'])} | {r['val_loss']:.3f} | {r['train_loss']:.3f} | {r['wall_s']:.0f} |"
          for r in sorted(rows, key=lambda r: order.index(r['variant']) if r['variant'] in order else 99)
          if r['pe'] == 'learnable' and r['seed'] == 0]
    rec = HERE/'recipe'/'shakespeare__learnable__s0'/'metrics.json'
    if rec.is_file():
        m = json.loads(rec.read_text())
        L += ['', f"Through the `nanogpt` profile (run_experiment, papermill): learnable seed 0, {m['val_loss']:.3f} in {m['wall_s']:.0f} s "
              "(`posenc train shakespeare learnable --profile nanogpt --threads 1 --runs_dir runs/dev-notes-nanogpt/recipe`)."]
    L += ['', 'Reproduce, one run at a time: `PYTHONPATH=$PWD OMP_NUM_THREADS=1 python runs/dev-notes-nanogpt/make_runs.py VARIANT PE [SEED]`, '
          'then `... make_runs.py summary`.']
    (HERE/'summary.md').write_text('\n'.join(L) + '\n'); print('\n'.join(L))

if __name__ == '__main__':
    a = sys.argv[1:]
    if a and a[0] == 'summary': summary()
    else: run(a[0] if a else 'default', a[1] if len(a) > 1 else 'learnable', int(a[2]) if len(a) > 2 else 0,
              a[3] if len(a) > 3 else None)
