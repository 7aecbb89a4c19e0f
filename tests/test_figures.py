"posenc.figures on fake run folders: every figure is drawn from complete runs, and partial or odd sweeps never crash."
import json
import numpy as np
import pytest
import torch
from posenc.figures import FIGURES, draw_all, load_runs, trained_param, fig_pe_tables, read_run
from posenc.testing import fake_runs
from posenc.models import build_model

@pytest.fixture(scope='module')
def full(tmp_path_factory):
    root = tmp_path_factory.mktemp('full')
    fake_runs(root/'runs'/'smoke', tasks=('shakespeare', 'shakespeare-mlm', 'ted-small', 'copy', 'passkey'),   # each kind, a retrieval task
              pes=('sinusoidal', 'learnable', 't5'), failed=[('copy', 't5', 1)])
    return root

def test_draw_all_complete(full):
    files = draw_all(full/'runs'/'smoke', full/'figs')
    # every figure but the ladders' (the transfer bump chart, the clipping chart), which need a ladder's runs beside the profile's (nbs/11_figures)
    ladders = ('transfer', 'clipping')
    assert {f.name for f in files} == {f'{n}.{e}' for n in FIGURES if n not in ladders for e in ('png', 'svg')}
    assert all(f.stat().st_size > 1000 for f in files)
    idx = json.loads((full/'figs'/'figures.json').read_text())
    assert idx['runs'] == 5 * 3 * 2 and all('file' in v for k, v in idx['figures'].items() if k not in ladders)
    assert 'no rung of a ladder' in idx['figures']['transfer']['skipped'] and 'no clipping rung' in idx['figures']['clipping']['skipped']

def test_partial_sweep_skips_with_reasons(tmp_path):
    runs = tmp_path/'runs'/'full'
    fake_runs(runs, tasks=('shakespeare', 'copy'), pes=('rope',), seeds=(0,), extras=False, failed=[('copy', 'rope', 0)])
    (runs/'shakespeare__alibi__s0').mkdir()                      # a run that has only started: config.json alone
    (runs/'shakespeare__alibi__s0'/'config.json').write_text(json.dumps(dict(task='shakespeare', pe='alibi', seed=0)))
    odd = runs/'shakespeare__rope__s0'/'metrics.json'             # a finished run whose metrics lack optional parts
    m = json.loads(odd.read_text()); m.pop('extrapolation'); odd.write_text(json.dumps(m))
    files = draw_all(runs, tmp_path/'figs', svg=False)
    idx = json.loads((tmp_path/'figs'/'figures.json').read_text())['figures']
    skipped = {k for k, v in idx.items() if 'skipped' in v}
    assert {'translation', 'synthetic', 'extrapolation', 'mds', 'attention'} <= skipped
    assert 'lm' not in skipped and 'loss_curves' not in skipped
    assert all(v['skipped'] for k, v in idx.items() if k in skipped)      # each skip has a reason
    assert {f.stem for f in files} == set(FIGURES) - skipped
    assert {r['status'] for r in load_runs(runs)} >= {'done', 'failed'}   # an unfinished run may or may not be listed

def test_trained_table_from_checkpoint(tmp_path):
    d = tmp_path/'runs'/'full'/'shakespeare__learnable__s0'
    (d/'checkpoints').mkdir(parents=True)
    (d/'config.json').write_text(json.dumps(dict(task='shakespeare', pe='learnable', seed=0)))
    (d/'metrics.json').write_text(json.dumps(dict(status='ok', kind='lm')))
    m = build_model('lm', vocab_size=20, d_model=16, n_heads=2, pe='learnable', max_len=40)
    torch.save(dict(model=m.state_dict(), step=3), d/'checkpoints'/'best.pt')
    tab, rid = trained_param([read_run(d)], 'learnable', 'pe.table')
    assert rid.endswith('shakespeare__learnable__s0')
    np.testing.assert_allclose(tab, m.dec.pe.table.detach().numpy())
    assert 'trained' in fig_pe_tables([read_run(d)]).axes[1].get_title()

def test_redraw_is_the_same_file(full, tmp_path):
    "Figures with random parts (the jitter of a strip plot, randomly drawn learned tables) are the same files on every redraw."
    names = ['lm', 'schemes']
    a, b = (draw_all(full/'runs'/'smoke', tmp_path/d, names=names) for d in 'ab')
    assert [f.name for f in a] == [f.name for f in b] and len(a) == 2 * len(names)
    for x, y in zip(a, b): assert x.read_bytes() == y.read_bytes(), x.name
