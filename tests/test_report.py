"posenc.report on fake run folders: it renders HTML and PDF, every number in its tables and conclusions matches the runs, and gaps are stated."
import json, math, re
from pathlib import Path
import numpy as np
import pytest
from posenc.figures import draw_all
from posenc.testing import fake_runs
from posenc.report import build_report

PES, SEEDS = ('sinusoidal', 'learnable', 'rope'), (0, 1)

@pytest.fixture(scope='module')
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp('rep')
    runs = root/'runs'/'smoke'
    fake_runs(runs, pes=PES, seeds=SEEDS, failed=[('copy', 'rope', 1)])
    draw_all(runs, root/'figures'/'smoke', names=['pe_tables', 'translation', 'synthetic', 'extrapolation'], svg=False)
    out = build_report(runs, root/'figures'/'smoke', root/'report'/'smoke', n_boot=200)
    return runs, out, out['md'].read_text()

def metrics(runs, task, pe, seed):
    p = runs/f'{task}__{pe}__s{seed}'/'metrics.json'
    return json.loads(p.read_text()) if p.is_file() else None

def tables(md):
    "Every pipe table of the Markdown as (caption, header, rows)."
    out, lines = [], md.split('\n')
    for i, l in enumerate(lines):
        if l.startswith('|') and i + 1 < len(lines) and re.match(r'^\|-{3,}', lines[i + 1]) and not lines[i - 1].startswith('|'):
            split = lambda s: [c.strip() for c in re.split(r'(?<!\\)\|', s.strip())[1:-1]]
            j, rows = i + 2, []
            while j < len(lines) and lines[j].startswith('|'): rows.append(split(lines[j])); j += 1
            cap = lines[j + 1][2:] if j + 1 < len(lines) and lines[j + 1].startswith(': ') else ''
            out.append((cap, split(l), rows))
    return out

def unescape(s): return re.sub(r'\\(.)', r'\1', s)

def check_pm(cell, values, nd):
    "A 'mean ± std' (or single value) cell equals the mean and sample std of `values` at `nd` decimals."
    vals = [v for v in values if v is not None]
    m = re.fullmatch(r'(-?[\d,]+(?:\.\d+)?)(?: ± ([\d,]+(?:\.\d+)?))?', cell)
    assert m, cell
    tol = 0.5 * 10 ** -nd + 1e-9
    assert abs(float(m[1].replace(',', '')) - np.mean(vals)) <= tol, (cell, vals)
    if len(vals) > 1: assert abs(float(m[2].replace(',', '')) - np.std(vals, ddof=1)) <= tol, (cell, vals)
    else: assert m[2] is None

def seeds_of(cell): return [int(s) for s in re.findall(r's(\d+)', cell)]

def test_renders_html_and_pdf(built):
    _, out, md = built
    html = out['html'].read_text()
    assert 'data:image/png;base64' in html and '<math' in html and 'src="../' not in html   # self-contained, MathML
    assert re.search(r'<a href="#fig-translation"[^>]*>Figure\s\d+</a>', html)              # cross-references resolved
    assert out['pdf'].read_bytes()[:5] == b'%PDF-' and out['pdf'].stat().st_size > 50_000
    assert md.startswith('---\n') and '{#fig-translation' in md and '$' in md

def test_result_tables_match_metrics(built):
    runs, _, md = built
    seen = set()
    get = lambda k: (lambda m: m.get(k))
    sub = lambda a, b: (lambda m: (m.get(a) or {}).get(b))
    spec = {'test scores': [(2, sub('bleu', 'beam'), 2), (3, sub('bleu', 'greedy'), 2), (4, sub('chrf', 'beam'), 2), (5, sub('chrf', 'greedy'), 2),
                            (8, get('val_loss'), 3)],
            'validation results': None, 'exact-match accuracy': [(2, get('acc_in_dist'), 3), (3, get('acc_ood'), 3)]}
    lmcols = {'val loss (nats)': ('val_loss', 3), 'perplexity': ('val_ppl', 2), 'bits/char': ('val_bpc', 3), 'bits/masked token': ('val_bpt_masked', 3)}
    for cap, header, rows in tables(md):
        task = cap.split(':')[0]
        kind = next((k for k in spec if k in cap), None)
        if kind is None: continue
        cols = spec[kind] or [(i, get(lmcols[h][0]), lmcols[h][1]) for i, h in enumerate(header) if h in lmcols]
        for r in rows:
            pe, seeds = r[0], seeds_of(r[1])
            ms = [metrics(runs, task, pe, s) for s in seeds]
            assert all(m is not None and m['status'] == 'ok' for m in ms)          # listed seeds are finished runs
            want = {s for s in SEEDS if (metrics(runs, task, pe, s) or {}).get('status') == 'ok'}
            assert set(seeds) == want                                               # and all finished seeds are listed
            for i, f, nd in cols: check_pm(r[i], [f(m) for m in ms], nd)
            seen.add((task, pe))
        if kind == 'test scores':   # Δ vs best
            best = next(r for r in rows if r[6] == 'best')
            for r in rows:
                if r[6] != 'best':
                    d = np.mean([metrics(runs, task, r[0], s)['bleu']['beam'] for s in seeds_of(r[1])]) - \
                        np.mean([metrics(runs, task, best[0], s)['bleu']['beam'] for s in seeds_of(best[1])])
                    assert abs(float(r[6]) - d) <= 0.005 + 1e-9 and d < 0
    assert {t for t, _ in seen} == {'shakespeare', 'shakespeare-mlm', 'ted-small', 'copy'}

def test_appendix_matches_metrics(built):
    runs, _, md = built
    cap, header, rows = next(t for t in tables(md) if t[0].startswith('Every run'))
    assert len(rows) == len(list(runs.iterdir()))
    for r in rows:
        name = unescape(r[0]); task, pe, seed = re.fullmatch(r'(.+)__(.+)__s(\d+)', name).groups()
        m = metrics(runs, task, pe, int(seed))
        if m is None:
            assert r[1] == 'failed' and 'NaN' in unescape(r[6]); continue
        assert r[1] == 'done'
        assert abs(float(r[2]) - m['val_loss']) <= 5e-5
        assert abs(float(r[4]) - m['wall_s']) <= 0.05 and abs(float(r[5].replace(',', '')) - m['tok_per_s']) <= 0.5
        for k, v in re.findall(r'([\w.]+)=(-?[\d.]+)', unescape(r[3])):
            x = m
            for part in k.split('.'): x = x[part]
            nd = len(v.split('.')[1]) if '.' in v else 0
            assert abs(float(v) - x) <= 0.5 * 10 ** -nd + 1e-9, (name, k, v, x)

def test_extrapolation_and_speed_tables(built):
    runs, _, md = built
    for cap, header, rows in tables(md):
        if 'evaluation length' in cap:
            key = 'sliding_loss' if 'sliding' in cap else 'chunked_loss'
            for r in rows:
                ms = [metrics(runs, cap.split(':')[0], r[0], s) for s in seeds_of(r[1])]
                for i in range(len(header) - 2): check_pm(r[2 + i], [m['extrapolation'][key][i] for m in ms], 3)
        if cap.startswith('Training throughput'):
            for r in rows:
                ms = [metrics(runs, r[0], r[1], s) for s in SEEDS]
                ms = [m for m in ms if m]
                check_pm(r[2], [m['tok_per_s'] for m in ms], 0)
                assert int(r[3].replace(',', '')) == ms[0]['params']['total'] and int(r[4].replace(',', '')) == ms[0]['params']['pe']

def test_conclusions_match_metrics(built):
    runs, _, md = built
    concl = md[md.index('# Conclusions'):md.index('# Appendix')]
    m = re.search(r'On ted-small, learnable − sinusoidal beam BLEU = (-?[\d.]+) ± ([\d.]+) \((p [=<] [\d.]+)', concl)
    a = [metrics(runs, 'ted-small', 'learnable', s)['bleu']['beam'] for s in SEEDS]
    b = [metrics(runs, 'ted-small', 'sinusoidal', s)['bleu']['beam'] for s in SEEDS]
    assert abs(float(m[1]) - (np.mean(a) - np.mean(b))) <= 0.005 + 1e-9
    assert abs(float(m[2]) - math.sqrt(np.var(a, ddof=1) / 2 + np.var(b, ddof=1) / 2)) <= 0.005 + 1e-9
    m = re.search(r'On shakespeare, learnable − sinusoidal validation loss \(nats\) = (-?[\d.]+)', concl)
    a = [metrics(runs, 'shakespeare', 'learnable', s)['val_loss'] for s in SEEDS]
    b = [metrics(runs, 'shakespeare', 'sinusoidal', s)['val_loss'] for s in SEEDS]
    assert abs(float(m[1]) - (np.mean(a) - np.mean(b))) <= 0.0005 + 1e-9
    assert 'no finished ALiBi run' in concl and 'NoPE and T5 have no finished runs' in concl
    m = re.search(r'On ted-small, RoPE − (\w+) \(the best other encoding\) beam BLEU = (-?[\d.]+)', concl)
    means = {pe: np.mean([metrics(runs, 'ted-small', pe, s)['bleu']['beam'] for s in SEEDS]) for pe in PES}
    assert m[1] == max((p for p in PES if p != 'rope'), key=means.get)
    assert abs(float(m[2]) - (means['rope'] - means[m[1]])) <= 0.005 + 1e-9

def test_partial_sweep_states_gaps(tmp_path):
    runs = tmp_path/'runs'/'cpu'
    fake_runs(runs, tasks=('shakespeare', 'copy'), pes=('rope',), seeds=(0,), extras=False, failed=[('copy', 'rope', 0)])
    out = build_report(runs, tmp_path/'figures'/'cpu', tmp_path/'report'/'cpu')
    md = out['md'].read_text()
    assert 'No finished runs of kind *seq2seq*, *mlm*, *synthetic*' in md
    assert 'No finished translation run, so there are no examples' in md
    assert 'copy__rope__s0' in md and 'RuntimeError' in md                      # the failed run and why
    assert 'not included: it has not been drawn' in md                          # figures were never drawn
    assert 'No benchmark results' in md
    assert out['html'].stat().st_size > 0 and out['pdf'].read_bytes()[:5] == b'%PDF-'

def test_no_runs_at_all(tmp_path):
    out = build_report(tmp_path/'nothing', tmp_path/'figs', tmp_path/'rep', formats=('html',))
    md = out['md'].read_text()
    assert 'No runs were found' in md and 'No run has finished' in md and 'pdf' not in out

def test_bench_tables_match_bench_json(built):
    runs, _, md = built
    b = json.loads((runs.parent/'bench'/'fakehost'/'bench.json').read_text())
    got = [t for t in tables(md) if t[0].startswith('Training step time ÷ none')]
    assert {cap.split(',')[1].strip() for cap, _, _ in got} == {'lm', 'seq2seq'}
    for cap, header, rows in got:
        kind = cap.split(',')[1].strip()
        for r in rows:
            for h, cell in zip(header[1:], r[1:]):
                x = next(x for x in b['train'] if x['kind'] == kind and x['pe'] == r[0] and x['T'] == int(h[2:]))
                m = re.fullmatch(r'([\d.]+)(?:/[\d.]+)*(?: \[([\d.]+)\])?', cell)
                assert abs(float(m[1]) - x['ratio_to_none']) <= 0.005 + 1e-9, (kind, r[0], h, cell)
                assert (m[2] is None) == (x['ratio_to_xt'] is None)
                if m[2]: assert abs(float(m[2]) - x['ratio_to_xt']) <= 0.005 + 1e-9
    dec = [t for t in tables(md) if t[0].startswith('Incremental decoding')]
    assert dec and all(abs(float(r[4]) - float(r[2].replace(',', '')) / float(r[3].replace(',', ''))) < 0.06 for r in dec[0][2])

def test_glance_matches_metrics(built):
    runs, _, md = built
    cap, header, rows = next(t for t in tables(md) if 'best mean in bold' in t[0])
    assert md.index('best mean in bold') < md.index('# Why positional encodings')      # it opens the report
    get = {'Shakespeare bits/char ↓': ('shakespeare', lambda m: m['val_bpc'], 3, min),
           'MLM bits/masked char ↓': ('shakespeare-mlm', lambda m: m['val_bpt_masked'], 3, min),
           'ted-small BLEU ↑': ('ted-small', lambda m: m['bleu']['beam'], 2, max),
           'copy acc. ≤ train ↑': ('copy', lambda m: m['acc_in_dist'], 3, max),
           'copy acc. longer ↑': ('copy', lambda m: m['acc_ood'], 3, max)}
    ext = next(h for h in header if h.startswith('Shakespeare loss at length'))
    get[ext] = ('shakespeare', lambda m: m['extrapolation']['sliding_loss'][-1], 3, min)
    assert set(header[1:]) == set(get)
    for j, h in enumerate(header[1:], 1):
        task, f, nd, pick = get[h]
        vals = {r[0]: [f(m) for s in SEEDS if (m := metrics(runs, task, r[0], s)) and m['status'] == 'ok'] for r in rows}
        best = pick(vals, key=lambda pe: np.mean(vals[pe]))
        for r in rows:
            cell = r[j]
            assert cell.startswith('**') == (r[0] == best), (h, r[0], cell)
            check_pm(cell.strip('*'), vals[r[0]], nd)
    assert sorted(r[0] for r in rows) == sorted(PES)
    done = [json.loads((d/'metrics.json').read_text()) for d in runs.iterdir() if (d/'metrics.json').is_file()]
    assert cap.startswith(f'{len(done)} finished runs, seeds 0, 1;')
    m = re.search(r'the runs took ([\d.]+) (h|min) of wall time', cap)
    wall = sum(x['wall_s'] for x in done)
    assert m and wall > 0 and abs(float(m[1]) - (wall / 3600 if m[2] == 'h' else wall / 60)) <= 0.5 + 1e-9
