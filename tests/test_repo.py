"Checks on the repository itself: README generated from index.ipynb, settings that the workflow relies on."
import configparser, re, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

def test_readme_is_generated_from_index():
    "README.md must be what `make readme` makes from nbs/index.ipynb."
    jupyter = Path(sys.executable).parent / 'jupyter'
    out = subprocess.run([str(jupyter), 'nbconvert', '--to', 'markdown', '--log-level', 'WARN', '--stdout',
                          '--TagRemovePreprocessor.enabled=True', '--TagRemovePreprocessor.remove_input_tags={"hide-input"}',
                          '--TagRemovePreprocessor.remove_cell_tags={"remove-cell"}', str(ROOT / 'nbs/index.ipynb')],
                         capture_output=True, text=True, check=True).stdout
    assert out == (ROOT / 'README.md').read_text(), "README.md is stale: run `make readme`"

def test_readme_shows_the_two_commands_and_ci_runs_the_test_one():
    readme = (ROOT / 'README.md').read_text()
    assert 'make run ' in readme and 'make test ' in readme
    assert 'make test' in (ROOT / '.ci/run').read_text()

def test_settings_keep_papermill_tags_and_pin_torch():
    cfg = configparser.ConfigParser(); cfg.read(ROOT / 'settings.ini')
    d = cfg['DEFAULT']
    assert d['allowed_cell_metadata_keys'] == 'tags'       # nbdev_clean must keep papermill's `parameters` tag
    assert d['tst_flags'] == 'notest'
    assert 'torch==2.13.0' in (ROOT / 'constraints.txt').read_text()
    # one list of dependencies: environment.yml installs the project rather than repeating them
    env = (ROOT / 'environment.yml').read_text()
    for req in d['requirements'].split():
        name = req.split('>')[0].split('<')[0].split('=')[0]
        assert f'- {name}' not in env, f'{name} is listed twice (settings.ini and environment.yml)'

def _link_free(md:str) -> str:
    "Markdown with the figure paths cut to the file name (they depend on where the report was written)."
    import re
    return re.sub(r'\]\([^)]*/(figures/[^)]+)\)', r'](\1)', md)

def test_committed_numbers_come_from_runs_full(tmp_path):
    "README's at-a-glance and training-check tables and the committed report/full/report.md are what runs/full gives today."
    from posenc.report import ReportContext, build_report, headline_markdown, trained_table
    from posenc.results import cached_runs
    runs, readme = ROOT / 'runs' / 'full', (ROOT / 'README.md').read_text()
    with cached_runs():   # the three read the same committed runs: each folder once
        assert headline_markdown(runs, label=None).strip() in readme
        assert trained_table(ReportContext(runs, tmp_path, tmp_path), label=None).strip() in readme
        out = build_report(runs, ROOT / 'figures' / 'full', tmp_path / 'report', formats=())
    assert _link_free(out['md'].read_text()) == _link_free((ROOT / 'report' / 'full' / 'report.md').read_text()), \
        "report/full is stale: run `posenc report --profile full`"
    assert not (ROOT / 'runs' / 'cpu').exists() and not (ROOT / 'report' / 'cpu').exists(), 'the retired cpu profile left files'


def test_jupyterlab_is_installed_and_make_lab_starts_it():
    "The set-up installs JupyterLab, and `make lab` starts it on the notebooks (with --allow-root only as root)."
    jupyter = Path(sys.executable).parent / 'jupyter'
    version = subprocess.run([str(jupyter), 'lab', '--version'], capture_output=True, text=True, check=True).stdout.strip()
    assert int(version.split('.')[0]) >= 4, version
    cmd = subprocess.run(['make', '-n', 'lab', f'BIN={jupyter.parent}'], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    assert f'{jupyter} lab --notebook-dir=nbs' in cmd


MODULE_ORDER = ('io encodings kernels attention models data kinds tasks tokenize train distributed decode evaluate plugins recipes profiles ladder runs '
                'engines sweep results testing transfer figures render context sections conclusions ladder_report controls_report report bench cli').split()

def test_modules_import_only_earlier_ones():
    "The library reads one way: a module's top-level imports name only modules before it in the README's reading order."
    import ast
    lib = ROOT/'posenc'
    assert {p.stem for p in lib.glob('*.py')} - {'__init__', '_modidx'} == set(MODULE_ORDER)
    for i, m in enumerate(MODULE_ORDER):
        for n in ast.parse((lib/f'{m}.py').read_text()).body:
            if isinstance(n, ast.ImportFrom) and n.module and (n.level == 1 or n.module.startswith('posenc.')):
                dep = n.module.removeprefix('posenc.')
                assert MODULE_ORDER.index(dep) < i, f"posenc.{m} imports posenc.{dep}, which comes after it"
    readme = (ROOT/'README.md').read_text()
    listed = re.findall(r'`(\w+)`(?: \([^)]*\))? → |→ `(\w+)`', readme[readme.index('The modules, in reading order'):])
    names = [a or b for a, b in listed]
    assert [n for n in names if n in MODULE_ORDER] == [n for n in MODULE_ORDER if n in names] and len(set(names) & set(MODULE_ORDER)) >= 18, names


def test_readme_nanogpt_numbers_come_from_runs():
    "The README's before/after char-LM losses are those of the committed nanoGPT-recipe runs."
    import json
    readme = (ROOT/'README.md').read_text()
    m = re.search(r'from (\d\.\d{3}) to (\d\.\d{3})\s+nats', readme)
    assert m, 'the README no longer quotes the nanoGPT-recipe losses'
    runs = ROOT/'runs'/'dev-notes-nanogpt'
    got = [json.loads((runs/f'{v}__learnable__s0.json').read_text())['val_loss'] for v in ('before', 'after')]
    assert [m[1], m[2]] == [f'{x:.3f}' for x in got]
    m = re.search(r'learnable from (\d\.\d{3}) to (\d\.\d{3}) nats, NoPE (\d\.\d{3})', readme)
    assert m, 'the README no longer quotes the masked-LM probes'
    probes = ROOT/'runs'/'dev-notes-recipes'
    got = [json.loads((probes/n/'metrics.json').read_text())['val_loss'] for n in ('mlm-learnable-sqrtd', 'mlm-learnable', 'mlm-none')]
    assert [m[1], m[2], m[3]] == [f'{x:.3f}' for x in got]


def test_readme_wmt_probe_numbers_come_from_runs():
    "The README's WMT-side BLEU (RoPE and the copied source on newstest2014) is that of the committed probes."
    import json
    readme, probes = (ROOT/'README.md').read_text(), ROOT/'runs'/'dev-notes-recipes'
    m = re.search(r'RoPE ends at (\d+\.\d\d) and (\d+\.\d\d) BLEU on newstest2014, where the source copied gives (\d+\.\d\d) and (\d+\.\d\d)', readme)
    assert m, 'the README no longer quotes the WMT-side probes'
    got = [json.loads((probes/f'{t}-rope'/'metrics.json').read_text())['by_test_set']['newstest2014'] for t in ('wmt-europarl', 'wmt-europarl-hansard')]
    assert list(m.groups()) == [f'{x:.2f}' for x in [g['bleu'] for g in got] + [g['copy_source']['bleu'] for g in got]]


def test_readme_mfu_tables_come_from_runs():
    "The README's model-FLOP-utilisation tables are those of the committed runs/bench/*/mfu.json."
    import json
    from posenc.bench import mfu_table
    files = sorted((ROOT/'runs'/'bench').glob('*/mfu.json'))
    assert files, 'no runs/bench/<machine>/mfu.json: run `posenc bench --mfu --threads 1`'
    readme = (ROOT/'README.md').read_text()
    for f in files: assert mfu_table(json.loads(f.read_text())['rows']) in readme, f


def test_committed_report_says_nothing_twice():
    "No sentence of twelve or more words appears twice in the committed report's prose."
    from posenc.report import repeated_sentences
    assert repeated_sentences((ROOT/'report'/'full'/'report.md').read_text()) == {}
