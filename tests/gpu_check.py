"""GPU check of posenc's attention paths: run from the repository root with `PYTHONPATH=. python tests/gpu_check.py [pe ...]` on a CUDA machine (pytest does not collect it: CI has no GPU).

For every registered encoding and the model kinds lm / seq2seq / mlm, on CUDA:
  1. cached decoding equals the full forward pass (float32, TF32 off): a first chunk of FLEX_MIN_Q+4 tokens (the
     FlexAttention path where the scheme has logit terms), then one token at a time (the explicit path);
  2. the FlexAttention path equals the explicit path (`MultiHeadAttention.use_flex = False`): outputs and the gradients
     of every parameter in float32 (TF32 off); under bf16 autocast the outputs (a looser tolerance) and, for each
     gradient, that the flex path is no further from the float32 gradient than the explicit path is (see `bf16_grads`);
  3. a few AdamW training steps under bf16 autocast stay finite.
Prints one row per (encoding, kind) and exits with status 1 (listing every mismatch) if any check fails.
Needs only torch (≥ 2.5 for FlexAttention) and the posenc package. `POSENC_CHECK_DEVICE=cpu` runs the same code on the
CPU (no FlexAttention there, so the two paths are one: a test of this script, not of the kernels).
"""
import os, sys, time, math, warnings
import torch
import torch.nn.functional as F
import posenc.attention as A
from posenc.encodings import pe_names
from posenc.models import build_model

dev = os.environ.get('POSENC_CHECK_DEVICE', 'cuda')
assert dev == 'cpu' or torch.cuda.is_available(), "gpu_check needs a CUDA device"
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
# every encoding and kind in one process compiles many FlexAttention graphs (a run uses one encoding); schemes with the
# same kinds of terms share graphs, so the caches are kept across encodings. Falling back to the unfused eager flex_attention is a failure here, not a warning.
torch._dynamo.config.recompile_limit = max(torch._dynamo.config.recompile_limit, 256)
warnings.filterwarnings('error', message='.*flex_attention called without torch.compile')

CALLS = {'flex': 0}
_flex = A.flex_terms_attention
def counting_flex(*a, **kw):
    CALLS['flex'] += 1
    return _flex(*a, **kw)
A.flex_terms_attention = counting_flex          # MultiHeadAttention looks the name up in posenc.attention at call time

V, D, H, L = 97, 64, 4, 2
failures, rows = [], []

def rel_err(a, b):
    "max |a − b| relative to max |b| (with a floor, so that tiny tensors do not blow up)."
    return ((a.float() - b.float()).abs().max() / b.float().abs().max().clamp(min=1e-3)).item()

def set_flex(model, on):
    for m in model.modules():
        if isinstance(m, A.MultiHeadAttention): m.use_flex = on

def batch(kind, g, B=3, S=40, T=40):   # one length: fewer shapes to compile for
    src = torch.randint(4, V, (B, S), generator=g)
    src[1, S - 7:] = 0; src[2, S - 13:] = 0                 # padded sources / MLM inputs (pad id 0)
    tgt = torch.randint(4, V, (B, T), generator=g)
    return src.to(dev), tgt.to(dev)

def forward(model, kind, src, tgt):
    if kind == 'lm': return model(tgt)
    if kind == 'mlm': return model(src)
    return model(src, tgt)

def loss_of(kind, logits, src, tgt):
    y = src if kind == 'mlm' else tgt.roll(-1, 1)
    return F.cross_entropy(logits.float().flatten(0, 1), y.flatten(), ignore_index=0)

def check(name, ok, what):
    if not ok: failures.append(f"{name}: {what}")
    return ok

def bf16_grads(flex, explicit, ref, tol):
    """The bf16 gradients that fail: where the flex path is further from the float32 gradient `ref` than both `tol` and
    twice the explicit path's distance. Both paths round to bf16, so where a gradient is (nearly) zero in exact
    arithmetic their difference is rounding noise on either side: FIRE's MLP output bias, for one, adds one constant to
    every logit of a row, which the softmax ignores (its gradient is 1e-17 in float64), so flex and explicit disagree
    there by 10 % of nothing. A flex path that is wrong is further from the float32 gradient than the explicit one."""
    out = []
    for n, g in explicit.items():
        if n not in flex or n not in ref: continue
        ef, ee = rel_err(flex[n], ref[n]), rel_err(g, ref[n])
        if ef > max(tol, 2 * ee): out.append(f"{n} {ef:.2e} from float32 (explicit path: {ee:.2e})")
    return out

def flex_vs_explicit(model, kind, src, tgt, autocast, tol_out, tol_grad, name, ref=None):
    "Outputs and gradients on both paths; returns (output error, largest gradient error between the paths, explicit gradients)."
    res = {}
    for on in (True, False):
        set_flex(model, on)
        model.zero_grad(set_to_none=True)
        with torch.autocast(dev, torch.bfloat16, enabled=autocast):
            out = forward(model, kind, src, tgt)
            loss = loss_of(kind, out, src, tgt)
        loss.backward()
        res[on] = (out.detach().float(), {n: p.grad.detach().float().clone() for n, p in model.named_parameters() if p.grad is not None})
    set_flex(model, True)
    eo = rel_err(res[True][0], res[False][0])
    eg = max((rel_err(res[True][1][n], g) for n, g in res[False][1].items() if n in res[True][1]), default=0.)
    missing = set(res[False][1]) ^ set(res[True][1])
    tag = 'bf16' if autocast else 'fp32'
    check(name, eo <= tol_out, f"flex vs explicit output ({tag}) rel err {eo:.2e} > {tol_out}")
    if ref is None: check(name, eg <= tol_grad, f"flex vs explicit gradients ({tag}) rel err {eg:.2e} > {tol_grad}")
    else:
        bad = bf16_grads(res[True][1], res[False][1], ref, tol_grad)
        check(name, not bad, f"flex gradients ({tag}) further from float32 than the explicit path's: {'; '.join(bad)}")
    check(name, not missing, f"parameters with a gradient on one path only ({tag}): {sorted(missing)}")
    return eo, eg, res[False][1]

def cache_check(model, kind, src, tgt, name):
    model.eval()
    n0 = A.FLEX_MIN_Q + 4
    with torch.no_grad():
        if kind == 'lm':
            full = model(tgt)
            c = model.new_cache()
            parts = [model(tgt[:, :n0], cache=c)] + [model(tgt[:, t:t + 1], cache=c) for t in range(n0, tgt.shape[1])]
        else:
            mem, keep = model.encode(src)
            full = model.decode(tgt, mem, keep)
            c = model.new_cache()
            parts = [model.decode(tgt[:, :n0], mem, keep, cache=c)] + \
                    [model.decode(tgt[:, t:t + 1], mem, keep, cache=c) for t in range(n0, tgt.shape[1])]
        err = rel_err(torch.cat(parts, 1), full)
    model.train()
    check(name, err <= 1e-4, f"cached decoding vs full forward rel err {err:.2e} > 1e-4")
    return err

def fmt(r): return f"{r[0]:20s} {r[1]:5d} " + ' '.join(f"{x:9.2e}" for x in r[2:7]) + f" {r[7]:7.3f} {r[8]:7.3f} {r[9]:6.1f}"

t_start = time.time()
print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0) if dev == 'cuda' else 'CPU'}, FlexAttention: {A.FLEX_AVAILABLE}", flush=True)
for pe in (sys.argv[1:] or pe_names()):          # optional: only the encodings named on the command line
    for kind in ('lm', 'seq2seq', 'mlm'):
        name = f"{pe}/{kind}"
        t0 = time.time()
        try:
            torch.manual_seed(0)
            g = torch.Generator().manual_seed(1)
            try: model = build_model(kind, vocab_size=V, d_model=D, n_heads=H, n_layers=L, pe=pe, dropout=0., max_len=128).to(dev)
            except ValueError as e:
                if kind != 'lm' and 'encoder' in str(e):          # a causal-only scheme refuses an encoder: skipped
                    rows.append((name + ' (skip)', 0) + (float('nan'),) * 7 + (0.,)); continue
                raise
            src, tgt = batch(kind, g)
            CALLS['flex'] = 0
            cerr = cache_check(model, kind, src, tgt, name) if kind != 'mlm' else float('nan')
            *e32, ref = flex_vs_explicit(model, kind, src, tgt, False, 1e-4, 1e-3, name)
            flex_calls = CALLS['flex']
            *e16, _ = flex_vs_explicit(model, kind, src, tgt, True, 3e-2, 1e-1, name, ref=ref)
            opt = torch.optim.AdamW(model.parameters(), 1e-3)
            losses = []
            for _ in range(5):
                with torch.autocast(dev, torch.bfloat16):
                    loss = loss_of(kind, forward(model, kind, src, tgt), src, tgt)
                loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
                losses.append(loss.item())
            if dev == 'cuda': torch.cuda.synchronize()
            check(name, all(math.isfinite(x) for x in losses), f"non-finite training loss {losses}")
            check(name, losses[-1] < losses[0], f"training loss did not fall {losses[0]:.3f} -> {losses[-1]:.3f}")
            rows.append((name, flex_calls, cerr, *e32, *e16, losses[0], losses[-1], time.time() - t0))
        except Exception as e:
            failures.append(f"{name}: {type(e).__name__}: {str(e)[:300]}")
            rows.append((name, -1) + (float('nan'),) * 7 + (time.time() - t0,))
        print(fmt(rows[-1]) + f"   ({len(failures)} failure(s) so far)", flush=True)   # a stopped run keeps its rows

print(f"\n{'encoding/kind':20s} {'flex':>5s} {'cache':>9s} {'out32':>9s} {'grad32':>9s} {'out16':>9s} {'grad16':>9s} "
      f"{'loss0':>7s} {'loss5':>7s} {'s':>6s}")
for r in rows: print(fmt(r))
print(f"\n'flex': FlexAttention calls during the cache check and the float32 flex pass (0: the scheme has no logit terms). "
      f"Errors are max |Δ| / max |reference|; grad16 is flex against explicit, and a bf16 gradient fails only where flex is "
      f"further than the explicit path from the float32 gradient (bf16_grads). Total {time.time() - t_start:.0f} s.")
if failures:
    print(f"\n{len(failures)} FAILURE(S):\n  " + '\n  '.join(failures))
    sys.exit(1)
print("all checks passed")
