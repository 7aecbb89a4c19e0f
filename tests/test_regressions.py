"""Regression tests for failure modes that users of other positional-encoding libraries reported publicly.

Each test names, in its docstring, the public issue or pull request it guards against. The models are tiny (d_model 16
or 32, 1–2 layers, no dropout, `eval()`) and run in float64, so "equal" means equal to about 1e-9 of the values' size;
the looser bounds (bf16 / fp16, under autocast or in a model cast to them) are explained where they are set.

What posenc does not support, and so is tested only where the API takes it: left padding through the model API.
`DecoderLM.forward` takes no key mask, a causal `Stack` drops `key_pad` (its queries never see right padding), and a
batch shares one position counter (there are no per-row position ids), so an absolute scheme (sinusoidal, learnable,
layerwise) could not place a left-padded row's first token at position 0. `lm_generate` batches prompts of equal
length instead of padding them. Left padding is tested at `MultiHeadAttention`, which takes `key_pad` and a cache.
"""
import pytest
import torch
from posenc.encodings import PosEnc, get_pe, make_pe, pe_names
from posenc.attention import MultiHeadAttention, capture_attention
from posenc.models import build_model
from posenc.decode import lm_generate

V = 23   # vocabulary; id 0 is the padding id

@pytest.fixture(autouse=True, scope='module')
def one_thread():
    "Tiny tensors: one thread is fastest, and on a shared machine a second thread mostly waits (restored afterwards)."
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)

def close(a, b, rtol=1e-9, what=''):
    "a equals b to `rtol` of b's largest magnitude (float64: about 1e7 times the rounding error of one operation)."
    a, b = a.double(), b.double()
    err, scale = (a - b).abs().max().item(), max(b.abs().max().item(), 1e-300)
    assert err <= rtol * scale, f"{what}: max |a − b| = {err:.3g} > {rtol:g} · max |b| = {rtol * scale:.3g}"

def tiny(kind, pe, pe_opts=None, max_len=64, n_layers=2, d_model=16, seed=0, **kw):
    "A float64 model of `kind` with random weights, no dropout, in eval mode."
    torch.manual_seed(seed)
    return build_model(kind, vocab_size=V, d_model=d_model, n_heads=2, n_layers=n_layers, pe=pe, pe_opts=pe_opts or {},
                       max_len=max_len, dropout=0., **kw).double().eval()

def ids(B, T, seed=1):
    "Random non-pad token ids (B, T)."
    return torch.randint(1, V, (B, T), generator=torch.Generator().manual_seed(seed))

def right_pad(rows):
    "Pad id lists on the right with 0 into one (B, max length) tensor."
    n = max(len(r) for r in rows)
    return torch.tensor([r + [0] * (n - len(r)) for r in rows])

def learned_table(name):
    "True for the schemes with a learned absolute table, whose rows end at max_len."
    return get_pe(name).token_scale_init

# ---------------------------------------------------------------------------------------------------------------------
# 1. RoPE / xPos angles under bf16 and fp16 autocast, at positions near 32k

POS0, T_AC, D_AC, H_AC = 32_000, 16, 32, 2    # queries and keys at positions 32000..32015, head dimension 16

def ref_rope(x, pos, base=10000.):
    "Independent float64 RoPE in the GPT-NeoX / HF 'rotate_half' layout (pairs i, i + d/2): angles pos·base^(−2i/d)."
    d = x.shape[-1]
    ang = pos.double()[:, None] * base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)[None]
    c, s = ang.cos(), ang.sin()
    x1, x2 = x[..., :d // 2], x[..., d // 2:]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], -1)

def ref_xpos(x, pos, sign, gamma=0.4, scale_base=512.):
    "Independent float64 xPos: RoPE times ζ_i^(±pos/scale_base), ζ_i = (2i/d + γ)/(1 + γ); + for queries, − for keys."
    d = x.shape[-1]
    zeta = (torch.arange(0, d, 2, dtype=torch.float64) / d + gamma) / (1 + gamma)
    s = zeta[None] ** (sign * pos.double()[:, None] / scale_base)
    return ref_rope(x, pos) * torch.cat([s, s], -1)

def lowp_angle_rope(x, pos, dtype, base=10000.):
    "The reported bug, for comparison: inv_freq and positions cast to `dtype` before the angles are formed."
    d = x.shape[-1]
    ang = pos.to(dtype)[:, None] * (base ** (-torch.arange(0, d, 2, dtype=torch.float32) / d)).to(dtype)[None]
    c, s = ang.cos(), ang.sin()
    x1, x2 = x[..., :d // 2], x[..., d // 2:]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], -1)

def autocast_qk(dtype):
    "Queries and keys (1, H, T, d) as a model's projection makes them inside `torch.autocast('cpu', dtype)`; skip if unsupported."
    torch.manual_seed(0)
    lin, x = torch.nn.Linear(D_AC, 2 * D_AC), torch.randn(1, T_AC, D_AC)
    try:
        with torch.autocast('cpu', dtype=dtype): qk = lin(x)
    except (RuntimeError, ValueError) as e: pytest.skip(f"torch.autocast('cpu', {dtype}) is not supported here: {e}")
    if qk.dtype != dtype: pytest.skip(f"torch.autocast('cpu', {dtype}) leaves nn.Linear in {qk.dtype} on this torch")
    return qk.view(1, T_AC, 2, H_AC, D_AC // H_AC).permute(2, 0, 3, 1, 4)

def row_err(a, ref):
    "Largest error of a row of `a` relative to the norm of that row of `ref`."
    return ((a.double() - ref).norm(dim=-1) / ref.norm(dim=-1)).max().item()

def score_err(s, ref, q, k):
    "Largest error of the logits q·k relative to |q|·|k| (the size a logit can have)."
    n = q.double().norm(dim=-1)[..., :, None] * k.double().norm(dim=-1)[..., None, :]
    return ((s.double() - ref).abs() / n).max().item()

# A float32 (or float64) angle leaves three roundings to `dtype` (cos/sin, the products, their sum), each at most
# eps/2 relative: 4·eps bounds the error with room (measured: 0.005 for bf16, eps = 2⁻⁷; 0.0005 for fp16, eps = 2⁻¹⁰).
# An angle formed in bf16 at position 32000 is off by up to 64 radians (bf16 spacing there is 128) and in fp16 by up
# to 16 (spacing 32): the rotation is then unrelated to the true one and its error is of order 1 (measured 1.5).
@pytest.mark.parametrize('dtype', [torch.bfloat16, torch.float16], ids=['bf16', 'fp16'])
def test_rope_angles_are_float32_under_autocast(dtype):
    """huggingface/transformers#29285: RoPE loses precision for Llama / Gemma under bfloat16 autocast, dramatically at long
    context (fixed by computing the angles in float32). Also EleutherAI/gpt-neox#1003 (RotaryEmbedding wrong for some
    position/feature pairs in fp16 and bf16) and huggingface/transformers#25681 (LlamaRotaryEmbedding cache wrong after
    casting the model to float16/bfloat16)."""
    q, k = autocast_qk(dtype)
    pe = make_pe('rope', D_AC, H_AC, 1, max_len=64)
    with torch.autocast('cpu', dtype=dtype):
        qr, kr = pe.qk(q, k, POS0, POS0, 0)
        s = qr @ kr.transpose(-1, -2)
    assert qr.dtype == dtype                                   # the rotation runs in the autocast dtype, as in a model
    pos = torch.arange(POS0, POS0 + T_AC)
    q64, k64 = q.double(), k.double()                          # the same rounded inputs: only the rotation is compared
    qref, kref = ref_rope(q64, pos), ref_rope(k64, pos)
    sref = qref @ kref.transpose(-1, -2)
    bound = 4 * torch.finfo(dtype).eps
    assert row_err(qr, qref) < bound and row_err(kr, kref) < bound
    assert score_err(s, sref, q, k) < bound
    close(sref, ref_rope(q64, pos - POS0) @ ref_rope(k64, pos - POS0).transpose(-1, -2), 1e-9, 'reference shift invariance')
    ql, kl = lowp_angle_rope(q, pos, dtype), lowp_angle_rope(k, pos, dtype)   # the bug: the bound would catch it
    assert row_err(ql, qref) > 10 * bound and score_err(ql @ kl.transpose(-1, -2), sref, q, k) > 10 * bound

@pytest.mark.parametrize('dtype', [torch.bfloat16, torch.float16], ids=['bf16', 'fp16'])
def test_xpos_angles_and_scales_under_autocast(dtype):
    """huggingface/transformers#29285 (RoPE precision under bf16 autocast) for xPos, whose rotation is RoPE's; its decay
    ζ^(±n/scale_base) must either fit the autocast dtype or fail loudly (fp16 overflows past a few thousand positions)."""
    q, k = autocast_qk(dtype)
    sb = 4096.                                                  # ζ₀^(±32000/4096) ≈ 10^(∓4.2): fits bf16 (float32's range)
    pe = make_pe('xpos', D_AC, H_AC, 1, max_len=64, causal=True, scale_base=sb)
    p0 = POS0 if pe.max_position(dtype) >= POS0 + T_AC else pe.max_position(dtype) - T_AC
    if dtype == torch.float16:
        assert p0 < POS0
        with torch.autocast('cpu', dtype=dtype), pytest.raises(ValueError, match='use a larger scale_base'):
            pe.qk(q, k, POS0, POS0, 0)
    with torch.autocast('cpu', dtype=dtype):
        qr, kr = pe.qk(q, k, p0, p0, 0)
        s = qr @ kr.transpose(-1, -2)
    pos = torch.arange(p0, p0 + T_AC)
    sref = ref_xpos(q.double(), pos, 1, scale_base=sb) @ ref_xpos(k.double(), pos, -1, scale_base=sb).transpose(-1, -2)
    assert score_err(s, sref, q, k) < 4 * torch.finfo(dtype).eps   # |m − n| < 16: the decay ≈ 1, logits ≈ |q||k| in size

@pytest.mark.parametrize('dtype', [torch.bfloat16, torch.float16], ids=['bf16', 'fp16'])
@pytest.mark.parametrize('name', ['rope', 'xpos'])
def test_rope_frequencies_survive_a_model_cast(name, dtype):
    """huggingface/transformers#25681: LlamaRotaryEmbedding computed a wrong cache after the model was cast to
    float16/bfloat16 (the cast rounds the inv_freq buffer). Also NVIDIA/Megatron-LM#744 (inv_freq cast by
    `to(torch.bfloat16)`) and okoge-kaz/llm-recipes#6 (RoPE's float32 inv_freq converted by `model.to(torch.bfloat16)`).

    A model cast with `.to(dtype)` (not autocast) keeps its frequencies (and xPos's ζ) in float64, so the rotation at
    position 32000 stays within the dtype's rounding of the reference (same 4·eps bound as above)."""
    sb = dict(scale_base=4096.) if name == 'xpos' else {}
    m = tiny('lm', name, sb, d_model=D_AC, n_layers=1).to(dtype)
    pe = m.dec.pe
    assert pe.inv_freq.dtype == torch.float64 and getattr(pe, 'zeta', pe.inv_freq).dtype == torch.float64
    p0 = min(POS0, pe.max_position(dtype) - T_AC) if name == 'xpos' else POS0
    torch.manual_seed(0)
    q = torch.randn(1, H_AC, T_AC, D_AC // H_AC).to(dtype)
    pos = torch.arange(p0, p0 + T_AC)
    qr, kr = pe.qk(q, q, p0, p0, 0)
    if name == 'rope':
        assert row_err(qr, ref_rope(q.double(), pos)) < 4 * torch.finfo(dtype).eps
    else:
        sref = ref_xpos(q.double(), pos, 1, **sb) @ ref_xpos(q.double(), pos, -1, **sb).transpose(-1, -2)
        assert score_err(qr @ kr.transpose(-1, -2), sref, q, q) < 4 * torch.finfo(dtype).eps
    with torch.no_grad(): assert torch.isfinite(m(ids(1, 6))).all()   # the cast model runs

def test_fire_distances_survive_a_model_cast():
    """huggingface/diffusers#13920: positions cast to bfloat16 collapsed (bf16's step at 65536 is 512, so neighbouring
    positions became equal and the model lost all spatial information). FIRE in a model cast to bf16 must form the
    distance i − j from exact positions: in bf16 the positions 997..1002 all round to 1000 (the step there is 4), which
    would give neighbouring keys distance 0."""
    torch.manual_seed(0)
    f32 = make_pe('fire', 16, 2, 1, 64, causal=True, init_L=8.)       # L = 8: rows at 1000 take the exact (non-Toeplitz) path
    fb = make_pe('fire', 16, 2, 1, 64, causal=True, init_L=8.)
    fb.load_state_dict(f32.state_dict()); fb = fb.to(torch.bfloat16)
    n32, nb = f32.normalized(3, 1003, 1000, 0), fb.normalized(3, 1003, 1000, 0)
    near = slice(990, 1003)                                            # keys 990..1002 around the queries 1000..1002
    assert (nb[:, near].float() - n32[:, near]).abs().max() < 4 * torch.finfo(torch.bfloat16).eps * n32[:, near].abs().max()
    assert (nb[0, 990:1001].diff() != 0).all()                          # neighbouring keys keep distinct distances
    with torch.no_grad():
        b32, bb = f32.bias(3, 1003, 1000, 0), fb.bias(3, 1003, 1000, 0)
    assert (bb.float() - b32).abs().max() < 0.02 * b32.abs().max()     # bf16 MLP: measured 0.008 (0.067 before the fix)

# ---------------------------------------------------------------------------------------------------------------------
# 2. Cached decoding with a start offset (a prefilled prompt) and with left padding, for every registered scheme

T_LM = 20
CHUNKS = [(1,) * T_LM, (7, 1, 1, 5, 6), (13, 7), (2, 11, 1, 1, 1, 1, 3)]   # first chunk: the prompt; then its offset

def cached(step, chunks, T):
    "Outputs of `step(a, b)` for rows a:b, chunk by chunk over T rows, concatenated on the time axis."
    assert sum(chunks) == T, f'chunks {chunks} do not cover {T} rows'
    outs, t = [], 0
    for c in chunks: outs.append(step(t, t + c)); t += c
    return torch.cat(outs, 1)

@pytest.mark.parametrize('name', pe_names())
def test_lm_cache_with_start_offset_equals_full_forward(name):
    """lucidrains/rotary-embedding-torch#11: the rotation's cache ignored the offset, so a second call with the same length
    at another offset reused the first offset's angles. Also huggingface/transformers#20203 (relative_key position
    embeddings wrong with use_cache) and lucidrains/x-transformers#219 (kv cache breaks generation)."""
    m = tiny('lm', name, max_len=T_LM if learned_table(name) else 8)   # 8: rope/sinusoidal tables grow while decoding
    x = ids(2, T_LM); x[1, 15:] = 0                                       # row 1 right-padded
    with torch.no_grad():
        full = m(x)
        for chunks in CHUNKS:
            c = m.new_cache()
            inc = cached(lambda a, b: m(x[:, a:b], cache=c), chunks, T_LM)
            close(inc[0], full[0], what=f'{name} {chunks} row 0'); close(inc[1, :15], full[1, :15], what=f'{name} {chunks} row 1')

@pytest.mark.parametrize('cross_pe', [False, True], ids=['self', 'cross_pe'])
@pytest.mark.parametrize('name', pe_names(bidirectional=True))
def test_seq2seq_cache_with_start_offset_equals_full_forward(name, cross_pe):
    """huggingface/candle#899: T5's position biases did not take the kv cache into account (cached decoding disagreed
    with the full decoder); lucidrains/x-transformers#103: relative biases not shifted by the cached length."""
    opts = dict(per_head=True) if name == 'layerwise' and cross_pe else {}
    m = tiny('seq2seq', name, opts, max_len=16, cross_pe=cross_pe)
    src, tgt = right_pad([ids(1, 9, 2)[0].tolist(), ids(1, 5, 3)[0].tolist()]), ids(2, 12, 4)
    with torch.no_grad():
        full = m(src, tgt)
        mem, keep = m.encode(src)
        for chunks in ((1,) * 12, (5, 1, 1, 5), (9, 3)):
            c = m.new_cache()
            close(cached(lambda a, b: m.decode(tgt[:, a:b], mem, keep, c), chunks, 12), full, what=f'{name} {chunks}')

def attend(att, pe, x, off, keep, cache):
    "One causal self-attention step of `att` as a `Stack` runs it: the scheme's shared bias, then the attention."
    T = x.shape[1]
    return att(x, pe, layer=0, q_off=off, causal=True, bias=pe.bias(T, off + T, off, 0, x.device), key_pad=keep, cache=cache)

@pytest.mark.parametrize('name', pe_names())
def test_left_padded_cached_attention_equals_unpadded(name):
    """huggingface/transformers#22161: GPT-NeoX's rotary embedding did not work with left padding (padded and unpadded
    forward passes disagreed); unslothai/unsloth#3699: batched generation with left padding produced incorrect output.

    posenc takes left padding only at `MultiHeadAttention` (key_pad + cache; see the module docstring): there the
    scheme's attention-side terms see one position counter for the batch, which is exact for every scheme whose terms
    depend on distances only. Checked for prefill + one-token steps against each row run alone, unpadded."""
    torch.manual_seed(0)
    D, P = 16, 3
    pe, att = make_pe(name, D, 2, 1, 64, causal=True).double(), MultiHeadAttention(D, 2).double().eval()
    a, b = torch.randn(1, 7, D, dtype=torch.float64), torch.randn(1, 10, D, dtype=torch.float64)
    x = torch.cat([torch.cat([torch.randn(1, P, D, dtype=torch.float64), a], 1), b])      # row 0: 3 pads, then a
    keep = torch.ones(2, 10, dtype=torch.bool); keep[0, :P] = False
    with torch.no_grad():
        ref_a, ref_b = attend(att, pe, a, 0, None, None), attend(att, pe, b, 0, None, None)
        full = attend(att, pe, x, 0, keep, None)
        close(full[0, P:], ref_a[0], what=f'{name} padded row'); close(full[1], ref_b[0], what=f'{name} unpadded row')
        for chunks in ((P + 2, 1, 1, 1, 1, 1), (P + 6, 1)):            # prompt, then one token a step (10 in all)
            c = {}
            inc = cached(lambda s, e: attend(att, pe, x[:, s:e], s, keep[:, :e], c), chunks, 10)
            close(inc[0, P:], ref_a[0], what=f'{name} {chunks} padded row'); close(inc[1], ref_b[0], what=f'{name} {chunks}')

@pytest.mark.parametrize('name', pe_names())
def test_lm_generate_ragged_prompts_equal_each_alone(name):
    """huggingface/transformers#22161 and unslothai/unsloth#3699 (left-padded batched generation went wrong): posenc's
    generation never pads a prompt; a batch of prompts of different lengths continues each as if it were alone."""
    m = tiny('lm', name, d_model=32)
    prompts = [[1, 5, 6], [1, 7], [1, 8, 9, 10, 11], [1, 4, 12], [1], [1, 13, 14, 15, 16, 17, 18]]
    together = lm_generate(m, prompts, 8, stop_id=None)     # (a continuation may stop early at the pad id, 0)
    assert together == [lm_generate(m, [p], 8, stop_id=None)[0] for p in prompts]

# ---------------------------------------------------------------------------------------------------------------------
# 3. NTK-aware and YaRN RoPE scaling with a cache, beyond the original length

SCALINGS = [dict(scaling='ntk', factor=4.), dict(scaling='yarn', factor=4., original_max_len=8),
            dict(scaling='linear', factor=4.)]

@pytest.mark.parametrize('opts', SCALINGS, ids=[o['scaling'] for o in SCALINGS])
def test_scaled_rope_cache_beyond_original_length(opts):
    """huggingface/transformers#25104: with dynamic NTK scaling, the cached keys (past_key_values) carried another rotation
    base than a full forward beyond the original length. sgl-project/sglang#38786: extending the rotary cache past its
    initial length dropped YaRN's scaling and mscale. Here the table grows from 8 to 32 positions while decoding."""
    T = 30                                                            # original length 8: 3.75× beyond it
    m, plain = tiny('lm', 'rope', opts, max_len=8, d_model=32), tiny('lm', 'rope', max_len=8, d_model=32)
    x = ids(2, T, 5)
    with torch.no_grad():
        full = m(x)
        assert (full - plain(x)).abs().max() > 1e-3                   # the scaling is in effect (the test is not vacuous)
        for chunks in ((1,) * T, (8, 1, 1, 20), (3, 9, 18)):
            mc = tiny('lm', 'rope', opts, max_len=8, d_model=32)      # same weights, fresh tables: they grow step by step
            c = mc.new_cache()
            close(cached(lambda a, b: mc(x[:, a:b], cache=c), chunks, T), full, what=f"{opts['scaling']} {chunks}")

@pytest.mark.parametrize('name', ['rope', 'xpos'])
def test_set_scaling_on_a_used_model_drops_its_cached_tables(name):
    """huggingface/transformers#27227: LlamaDynamicNTKScalingRotaryEmbedding's cached cos/sin were wrong once the scaling
    changed (the base was not scaled back; see also #25104). Switching a trained model's scaling with `set_scaling` after
    it has run (its tables are cached) must give the model built with that scaling, with and without a kv cache."""
    T, opts = 24, dict(scaling='yarn', factor=4., original_max_len=8)
    m = tiny('lm', name, max_len=8, d_model=32)
    x = ids(2, T, 6)
    with torch.no_grad():
        before = m(x)                                                  # fills the cos/sin cache at the old scaling
        m.dec.pe.set_scaling(**opts)
        if name == 'rope':
            ref = tiny('lm', name, opts, max_len=8, d_model=32)(x)     # same seed, same weights, scaled from the start
            close(m(x), ref, what='set_scaling == built scaled')
        after = m(x)
        assert (after - before).abs().max() > 1e-3
        c = m.new_cache()
        close(cached(lambda a, b: m(x[:, a:b], cache=c), (5, 1, 1, 17), T), after, what=f'{name} cached after set_scaling')

# ---------------------------------------------------------------------------------------------------------------------
# 4. Schemes that add to the logits, with key padding masks

_HOOKS = ('bias', 'qbias', 'clipped_terms', 'key_terms', 'qk_bias')
LOGIT_PES = [n for n in pe_names() if any(getattr(get_pe(n), h) is not getattr(PosEnc, h) for h in _HOOKS)]

def test_logit_schemes_are_found():
    "Every scheme that adds to the attention logits is picked up from the registry (a new one is tested automatically)."
    assert {'alibi', 't5', 'kerple', 'fire', 'shaw', 'xl', 'deberta', 'cope'} <= set(LOGIT_PES)
    assert not {'rope', 'sinusoidal', 'learnable', 'none'} & set(LOGIT_PES)

@pytest.mark.parametrize('name', [n for n in LOGIT_PES if n in pe_names(bidirectional=True)])
def test_encoder_logit_bias_with_key_padding(name):
    """huggingface/transformers#26380: padding changed the output of the forward pass in BLOOM (ALiBi), and
    huggingface/transformers#18809: changing one example of a BLOOM batch changed the others.

    In the encoder (MLM), padded keys get exactly zero attention from every query, and the real positions' outputs equal
    those of the unpadded sequence, for right padding and for left padding (the bias depends on distances only)."""
    m = tiny('mlm', name)
    x = ids(1, 8, 7)
    z = torch.zeros(1, 3, dtype=torch.long)
    with torch.no_grad():
        ref = m(x)
        for padded, real in ((torch.cat([x, z], 1), slice(0, 8)), (torch.cat([z, x], 1), slice(3, 11))):
            with capture_attention(m) as att:
                out = m(padded)
            close(out[:, real], ref, what=f'{name} padded as {real}')
            pad = padded[0] == 0
            for w in (w for ws in att.values() for w in ws):
                assert w[..., pad].abs().max() == 0, f'{name}: a padded key got attention'
                close(w.sum(-1), torch.ones_like(w.sum(-1)), what='attention rows sum to 1')
        close(m(torch.cat([x, z], 1))[:, :8], ref, what=f'{name} fast path, right padding')   # capture takes the explicit path

@pytest.mark.parametrize('name', [n for n in LOGIT_PES if n in pe_names(bidirectional=True)])
def test_cross_attention_logit_bias_with_source_padding(name):
    """OpenNMT/OpenNMT-py#272: the attention mask over source words was not applied, which made batched decoding
    'terrible'. With the scheme also in cross-attention (`cross_pe=True`), padded source keys get no attention and the
    output equals that of the unpadded source."""
    m = tiny('seq2seq', name, cross_pe=True)
    src, tgt = ids(1, 6, 8), ids(1, 5, 9)
    srcp = torch.cat([src, torch.zeros(1, 4, dtype=torch.long)], 1)
    with torch.no_grad():
        ref = m(src, tgt)
        close(m(srcp, tgt), ref, what=f'{name} fast path')
        with capture_attention(m) as att:
            close(m(srcp, tgt), ref, what=f'{name} explicit path')
    xw = [w for n, ws in att.items() if 'xattn' in n for w in ws]
    assert xw and all(w[..., 6:].abs().max() == 0 for w in xw)

@pytest.mark.parametrize('name', LOGIT_PES)
def test_causal_logit_bias_with_key_padding(name):
    """huggingface/transformers#26380 (BLOOM/ALiBi: padding changed the forward pass), for a causal attention with a key
    mask and a cache, including the causal-only schemes (CoPE): padded keys get exactly zero attention."""
    torch.manual_seed(0)
    D, P = 16, 3
    pe, att = make_pe(name, D, 2, 1, 64, causal=True).double(), MultiHeadAttention(D, 2).double().eval()
    x = torch.randn(2, 9, D, dtype=torch.float64)
    keep = torch.ones(2, 9, dtype=torch.bool); keep[0, :P] = False; keep[1, 4] = False   # left and middle padding
    with torch.no_grad(), capture_attention(att) as w:
        c = {}
        attend(att, pe, x[:, :5], 0, keep[:, :5], c)
        for t in range(5, 9): attend(att, pe, x[:, t:t + 1], t, keep[:, :t + 1], c)
    for p in w['']:
        Tk = p.shape[-1]
        pad = ~keep[:, :Tk]
        rows = keep[:, Tk - p.shape[2]:Tk]                              # real queries (a pad query sees only pads at first)
        got = p.masked_fill(~rows[:, None, :, None], 0).masked_fill(~pad[:, None, None, :], 0)
        assert got.abs().max() == 0, f'{name}: a padded key got attention'

# ---------------------------------------------------------------------------------------------------------------------
# 5. Ragged batches (right-padded): each sequence's real positions as if it ran alone

LENS = [9, 4, 6]

@pytest.mark.parametrize('name', pe_names())
def test_ragged_batch_lm(name):
    """huggingface/transformers#29029: padding caused forward to produce different logits (Llama 2); and
    huggingface/transformers#18809 (one example of a BLOOM batch changed the others)."""
    m = tiny('lm', name)
    rows = [ids(1, n, 10 + i)[0].tolist() for i, n in enumerate(LENS)]
    with torch.no_grad():
        out = m(right_pad(rows))
        for i, r in enumerate(rows): close(out[i, :len(r)], m(torch.tensor([r]))[0], what=f'{name} row {i}')

@pytest.mark.parametrize('name', pe_names(bidirectional=True))
def test_ragged_batch_mlm(name):
    """AI4Bharat/IndicBERT#20: an encoder whose attention_mask was not honoured; real-token hidden states changed with
    batch padding. huggingface/transformers#26380 (padding changed BLOOM's forward pass)."""
    m = tiny('mlm', name)
    rows = [ids(1, n, 20 + i)[0].tolist() for i, n in enumerate(LENS)]
    with torch.no_grad():
        out = m(right_pad(rows))
        for i, r in enumerate(rows): close(out[i, :len(r)], m(torch.tensor([r]))[0], what=f'{name} row {i}')

@pytest.mark.parametrize('cross_pe', [False, True], ids=['self', 'cross_pe'])
@pytest.mark.parametrize('name', pe_names(bidirectional=True))
def test_ragged_batch_seq2seq(name, cross_pe):
    """OpenNMT/OpenNMT-py#272: the source padding mask was not applied in attention, so decoding with batch_size > 1 went
    wrong. Ragged sources and ragged targets, each pair as if alone, with and without the scheme in cross-attention."""
    opts = dict(per_head=True) if name == 'layerwise' and cross_pe else {}
    m = tiny('seq2seq', name, opts, cross_pe=cross_pe)
    srcs = [ids(1, n, 30 + i)[0].tolist() for i, n in enumerate(LENS)]
    tgts = [ids(1, n, 40 + i)[0].tolist() for i, n in enumerate([3, 7, 5])]
    with torch.no_grad():
        out = m(right_pad(srcs), right_pad(tgts))
        for i, (s, t) in enumerate(zip(srcs, tgts)):
            close(out[i, :len(t)], m(torch.tensor([s]), torch.tensor([t]))[0], what=f'{name} pair {i}')
