"Every notebook opens in Colab: a badge with its own path, and a set-up cell that acts only inside Colab."
import importlib.util, json, os, re, subprocess, sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location('colab_tool', ROOT / 'tools' / 'colab.py')
colab = importlib.util.module_from_spec(_spec); _spec.loader.exec_module(colab)
NBS = colab.notebooks()
TEMPLATES = sorted((ROOT / 'nbs' / 'experiments').glob('*.ipynb'))

def _cells(path): return json.loads(path.read_text())['cells']
def _src(cell): return ''.join(cell['source'])

def test_every_notebook_is_covered():
    assert len(NBS) >= 20 and (ROOT / 'nbs' / 'index.ipynb') in NBS and TEMPLATES and set(TEMPLATES) <= set(NBS)

@pytest.mark.parametrize('path', NBS, ids=lambda p: colab.rel(p))
def test_badge_points_at_this_notebook(path):
    first = _cells(path)[0]
    assert first['cell_type'] == 'markdown'
    md = _src(first)
    assert colab.badge(path) in md
    url = re.search(r'\]\((https://colab\.research\.google\.com/github/[^)]+)\)', md).group(1)
    s = colab.settings()   # the repository's address: settings.ini's git_url and branch, and nothing else
    repo = s['git_url'].rstrip('/').removesuffix('.git').split('github.com/', 1)[1]
    m = re.fullmatch(rf'https://colab\.research\.google\.com/github/{re.escape(repo)}/blob/{re.escape(s["branch"])}/(.+)', url)
    assert m and (ROOT / m.group(1)).resolve() == path.resolve()
    # nbdev still reads the title and the summary from the first lines
    lines = [l for l in md.split('\n') if l.strip()]
    assert lines[0].startswith('# ') and lines[1].startswith('> ')

@pytest.mark.parametrize('path', NBS, ids=lambda p: colab.rel(p))
def test_setup_is_the_first_code_cell(path):
    code = [c for c in _cells(path) if c['cell_type'] == 'code']
    assert _src(code[0]) == colab.setup_source(path)
    assert 'remove-cell' in code[0]['metadata'].get('tags', [])   # kept out of README.md
    assert _src(code[0]).startswith('#| hide\n')                    # and out of the nbdev docs
    assert sum(colab.is_setup(c) for c in code) == 1

def test_the_tool_has_nothing_left_to_change():
    "The committed notebooks are exactly what `python tools/colab.py` (then nbdev_clean) leaves."
    assert [colab.rel(p) for p in NBS if colab.apply(p, write=False)] == []

def test_setup_outside_colab_does_nothing(monkeypatch):
    calls = []
    monkeypatch.setattr(subprocess, 'run', lambda *a, **k: calls.append(a))
    monkeypatch.setattr(subprocess, 'check_call', lambda *a, **k: calls.append(a))
    monkeypatch.setattr(os, 'chdir', lambda *a: calls.append(a))
    monkeypatch.delitem(sys.modules, 'google.colab', raising=False)
    path0, mods = list(sys.path), set(sys.modules)
    for p in (ROOT / 'nbs' / 'index.ipynb', TEMPLATES[0]):
        ns = {}
        exec(compile(colab.setup_source(p), str(p), 'exec'), ns)
        assert set(ns) - {'__builtins__'} == {'sys'}
    assert calls == [] and sys.path == path0 and set(sys.modules) == mods

def test_setup_inside_colab_clones_installs_and_enters_the_clone(monkeypatch):
    calls = []
    monkeypatch.setattr(subprocess, 'run', lambda cmd, **k: calls.append(cmd))
    monkeypatch.setattr(os, 'chdir', lambda d: calls.append(('chdir', d)))
    monkeypatch.setattr(os.path, 'isdir', lambda d: False)
    monkeypatch.setitem(sys.modules, 'google.colab', object())
    monkeypatch.setattr(sys, 'path', list(sys.path))
    exec(colab.setup_source(TEMPLATES[0]), {})
    clone, pip, cd = calls
    s = colab.settings()
    assert clone[:2] == ['git', 'clone'] and s['git_url'] in clone and s['branch'] in clone
    assert pip[1:4] == ['-m', 'pip', 'install'] and not any('torch' in a or a in ('-c', '--constraint') for a in pip)
    assert cd == ('chdir', '/content/posenc/nbs/experiments') and sys.path[0] == '/content/posenc'

@pytest.mark.parametrize('path', TEMPLATES, ids=lambda p: p.name)
def test_templates_keep_their_parameters(path):
    from posenc.sweep import template_params
    cells = _cells(path)
    tagged = [i for i, c in enumerate(cells) if 'parameters' in c['metadata'].get('tags', [])]
    assert len(tagged) == 1
    params = template_params(path)
    assert {'task', 'pe', 'seed', 'profile', 'out_dir', 'device'} <= set(params)
    assert params['device']['default'] == "'auto'"

def test_check_params_still_reads_the_templates():
    from posenc.sweep import Job, check_params
    t = str(ROOT / 'nbs' / 'experiments' / 'synthetic.ipynb')
    check_params(Job('copy', 'rope', 0, 'smoke', params=dict(device='cpu'), template=t))
    with pytest.raises(ValueError, match='no parameter'):
        check_params(Job('copy', 'rope', 0, 'smoke', params=dict(not_a_param=1), template=t))
