"""posenc.report end to end on fake run folders: report.md, HTML and PDF are written, and a partial or empty sweep states its gaps.
The numbers of every section are checked against the run files beside the section, in nbs/12_context.ipynb,
12a_sections, 12b_conclusions and 12c_report."""
import re
import pytest
from posenc.figures import draw_all
from posenc.testing import fake_runs
from posenc.report import build_report

@pytest.fixture(scope='module')
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp('rep')
    runs = root/'runs'/'smoke'
    fake_runs(runs, pes=('sinusoidal', 'learnable', 'rope'), seeds=(0, 1), failed=[('copy', 'rope', 1)])
    draw_all(runs, root/'figures'/'smoke', names=['pe_tables', 'translation', 'synthetic', 'extrapolation'], svg=False)
    out = build_report(runs, root/'figures'/'smoke', root/'report'/'smoke', n_boot=200)
    return runs, out, out['md'].read_text()

def test_renders_html_and_pdf(built):
    _, out, md = built
    html = out['html'].read_text()
    assert 'data:image/png;base64' in html and '<math' in html and 'src="../' not in html   # self-contained, MathML
    assert re.search(r'<a href="#fig-translation"[^>]*>Figure\s\d+</a>', html)              # cross-references resolved
    assert out['pdf'].read_bytes()[:5] == b'%PDF-' and out['pdf'].stat().st_size > 50_000
    assert md.startswith('---\n') and '{#fig-translation' in md and '$' in md
    assert md.index('best mean in bold') < md.index('# Why positional encodings')           # the glance table opens it

def test_partial_sweep_states_gaps(tmp_path):
    runs = tmp_path/'runs'/'full'
    fake_runs(runs, tasks=('shakespeare', 'copy'), pes=('rope',), seeds=(0,), extras=False, failed=[('copy', 'rope', 0)])
    out = build_report(runs, tmp_path/'figures'/'full', tmp_path/'report'/'full')
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
