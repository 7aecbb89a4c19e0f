"""Smoke test of the benchmark: `posenc bench --quick` (here `python -m posenc.cli bench --quick`) runs every part at tiny sizes and writes its JSON and figure."""
import json, subprocess, sys
from posenc.encodings import pe_names
from posenc.bench import XT_PE

def test_bench_quick(tmp_path):
    out, fig = tmp_path / 'bench.json', tmp_path / 'bench.png'
    r = subprocess.run([sys.executable, '-m', 'posenc.cli', 'bench', '--quick', '--out', str(out), '--figure', str(fig)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    res = json.loads(out.read_text())
    assert fig.exists() and fig.stat().st_size > 0
    m = res['machine']
    assert m['cpu'] and m['torch'] and m['torch_threads'] == 1 and res['settings']['quick']
    rows = [x for x in res['train'] if x['lib'] == 'posenc']
    skipped = {(k, p) for k in ('lm', 'seq2seq') for p in pe_names() if f'posenc {p} ({k}) not timed' in ' '.join(res['notes'])}
    assert {(x['kind'], x['pe']) for x in rows} == {(k, p) for k in ('lm', 'seq2seq') for p in pe_names()} - skipped
    assert all(('lm', p) not in skipped for p in pe_names())      # every scheme builds as a causal LM
    for x in rows:
        assert x['n'] == res['settings']['reps'] and x['median_ms'] > 0 and x['ratio_to_none'] > 0
    longest = max(res['settings']['lengths'])
    for kind in ('lm', 'seq2seq'):
        for pe in ('none', 'shaw'):
            x = next(x for x in rows if (x['kind'], x['pe'], x['T']) == (kind, pe, longest))
            assert x['memory']['peak_mb'] > 0, x['memory']
    xt = [x for x in res['train'] if x['lib'] == 'xt']
    if m['x_transformers']:                          # optional dependency (the `bench` extra)
        assert {x['pe'] for x in xt} == {p for p in XT_PE if p in pe_names()}
        assert all('ratio_to_xt' in x for x in rows if x['pe'] in {'none', 'rope', 'alibi', 't5'})
    dec = res['decode']
    assert len(dec) == 2 * 2 * len(pe_names()) - 2 * len([n for n in res['notes'] if n.startswith('decoding ')]) and all(d['same_output'] and d['tokens_per_s'] > 0 for d in dec)
    assert '| pe | T |' in r.stdout and '| encoding | category |' in r.stdout
