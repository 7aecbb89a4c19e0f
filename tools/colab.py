"""Give notebooks an "Open in Colab" badge and a Colab set-up cell.

    python tools/colab.py                      # every notebook in nbs/ and nbs/experiments/
    python tools/colab.py nbs/15_new.ipynb     # one new notebook

The badge goes into the first markdown cell, after its `# Title` and `> summary` lines (so nbdev still reads
them). The set-up cell becomes the first code cell: in Colab it clones the repository, installs it (Colab's own
torch satisfies the requirement, so nothing is pinned) and works in the clone, so the templates, `runs/` and the
data folder are where the library looks for them; the loaders download missing corpora by themselves and
`device='auto'` takes the GPU. Elsewhere the cell does nothing. Running the script again changes nothing.
"""
from __future__ import annotations
import configparser, json, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BADGE_IMG = 'https://colab.research.google.com/assets/colab-badge.svg'
MARK = '# Colab set-up:'   # the set-up cell is the code cell whose source contains this line
CLONE = '/content/posenc'

def settings(root:Path=ROOT) -> dict:
    cfg = configparser.ConfigParser(); cfg.read(root/'settings.ini')
    return dict(cfg['DEFAULT'])

def rel(path, root:Path=ROOT) -> str:
    "The notebook's path inside the repository, with forward slashes."
    return Path(path).resolve().relative_to(root.resolve()).as_posix()

def colab_url(path, root:Path=ROOT) -> str:
    "The Colab address of a notebook of the repository, from settings.ini's `git_url` and `branch`."
    s = settings(root)
    gh = s['git_url'].rstrip('/').removesuffix('.git').split('github.com/', 1)[1]
    return f"https://colab.research.google.com/github/{gh}/blob/{s['branch']}/{rel(path, root)}"

def badge(path, root:Path=ROOT) -> str:
    return f"[![Open In Colab]({BADGE_IMG})]({colab_url(path, root)})"

def setup_source(path, root:Path=ROOT) -> str:
    "The set-up cell of the notebook at `path`."
    s = settings(root)
    folder = str(Path(CLONE)/Path(rel(path, root)).parent)
    return f"""#| hide
{MARK} install posenc from its repository and work in a clone of it; elsewhere this cell does nothing
import sys
if 'google.colab' in sys.modules:
    import os, subprocess
    if not os.path.isdir({CLONE!r}):
        subprocess.run(['git', 'clone', '-q', '--depth', '1', '-b', {s['branch']!r}, {s['git_url']!r}, {CLONE!r}], check=True)
        subprocess.run([sys.executable, '-m', 'pip', 'install', '-q', '-e', {CLONE!r}], check=True)
    sys.path.insert(0, {CLONE!r}); os.chdir({folder!r})"""

def setup_cell(path, root:Path=ROOT) -> dict:
    # `remove-cell` keeps it out of README.md (nbconvert); `#| hide` keeps it out of the nbdev docs
    return dict(cell_type='code', execution_count=None, metadata=dict(tags=['remove-cell']), outputs=[],
                source=setup_source(path, root).splitlines(keepends=True))

def _src(cell) -> str:
    return ''.join(cell['source']) if isinstance(cell['source'], list) else cell['source']

def is_setup(cell) -> bool:
    return cell['cell_type'] == 'code' and MARK in _src(cell)

def with_badge(md:str, line:str) -> str:
    "Markdown `md` with the badge `line` after its title and summary lines (replacing an older badge)."
    lines = [l for l in md.split('\n') if not l.startswith(f'[![Open In Colab]({BADGE_IMG})]')]
    i = 0
    if i < len(lines) and lines[i].startswith('# '):
        i += 1
        j = i
        while j < len(lines) and not lines[j].strip(): j += 1
        if j < len(lines) and lines[j].startswith('> '): i = j + 1
    head, tail = lines[:i], lines[i:]
    while tail and not tail[0].strip(): tail = tail[1:]
    out = head + ([''] if head else []) + [line] + ([''] + tail if tail else [])
    return '\n'.join(out)

def apply(path, root:Path=ROOT, write:bool=True) -> bool:
    "Add (or refresh) the badge and the set-up cell of one notebook; True when the file changed (or would, with `write=False`)."
    path = Path(path); text = path.read_text()
    nb = json.loads(text)
    old = [c for c in nb['cells'] if is_setup(c)]
    cells = [c for c in nb['cells'] if not is_setup(c)]
    mds = [i for i, c in enumerate(cells) if c['cell_type'] == 'markdown']
    if mds and mds[0] == 0: cells[0]['source'] = with_badge(_src(cells[0]), badge(path, root)).splitlines(keepends=True)
    else: cells.insert(0, dict(cell_type='markdown', metadata={}, source=[badge(path, root)]))
    first_code = next((i for i, c in enumerate(cells) if c['cell_type'] == 'code'), len(cells))
    cell = setup_cell(path, root)
    if old:   # keep what nbdev_clean gave the cell (its id), refresh the rest
        cell = {**old[0], 'source': cell['source'], 'outputs': [], 'execution_count': None,
                'metadata': {**old[0].get('metadata', {}), 'tags': cell['metadata']['tags']}}
    cells.insert(first_code, cell)
    nb['cells'] = cells
    new = json.dumps(nb, indent=1, ensure_ascii=False) + '\n'
    if new == text: return False
    if write: path.write_text(new)
    return True

def notebooks(root:Path=ROOT) -> list[Path]:
    return sorted((root/'nbs').glob('*.ipynb')) + sorted((root/'nbs'/'experiments').glob('*.ipynb'))

if __name__ == '__main__':
    for p in ([Path(a) for a in sys.argv[1:]] or notebooks()):
        if apply(p): print(f'updated {p}')
