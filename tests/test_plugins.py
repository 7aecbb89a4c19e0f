"""A researcher's own encoding and task from a file of their own: named by a profile's `plugins` key (or `--plugin`), swept
through papermill next to built-ins, then drawn, reported and listed like them."""
import json, re, subprocess, sys
from pathlib import Path
import pytest

_SCRIPT = Path(sys.executable).parent/'posenc'
CMD = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, '-c', 'import sys; from posenc.cli import main; sys.exit(main())']

PLUGIN = '''
import torch, torch.nn as nn, torch.nn.functional as F
from posenc.encodings import PosEnc, register, rel_pos
from posenc.tasks import register_task

@register('myslope')
class LearnedSlope(PosEnc):
    "ALiBi with a learned slope per head."
    def __init__(self, d_model, n_heads, n_layers=1, max_len=1024, causal=False, init:float=0.5):
        super().__init__(d_model, n_heads, n_layers, max_len, causal)
        self.s = nn.Parameter(torch.full((n_heads,), float(init)))
    def bias(self, Tq, Tk, q_off=0, k_off=0, device=None):
        return -(F.softplus(self.s)[:, None, None] * rel_pos(Tq, Tk, q_off, k_off, device).abs())[None]

@register_task('mirror')
def mirror(rng, n):
    s = ''.join(rng.choice('0123456789') for _ in range(n))
    return s, s[::-1] + s
'''

def posenc(*args, timeout=600):
    r = subprocess.run(CMD + [str(a) for a in args], capture_output=True, text=True, timeout=timeout)
    return r.returncode, r.stdout, r.stderr

def test_plugin_swept_through_papermill_next_to_builtins(tmp_path):
    (tmp_path/'plug'/'my_plugin.py').parent.mkdir()
    (tmp_path/'plug'/'my_plugin.py').write_text(PLUGIN)
    prof = tmp_path/'mine.toml'    # the plugin path is relative to the profile's folder
    prof.write_text('plugins = ["plug/my_plugin.py"]\npes = ["myslope", "alibi"]\n[tasks.mirror]\nsteps = 4\nn_train = 200\n'
                    'train_max_len = 4\ntest_max_len = 6\nn_test_per_length = 2\n')
    runs = tmp_path/'runs'
    rc, out, err = posenc('sweep', '--profile', prof, '--runs-dir', runs, '--workers', 2)
    assert rc == 0, out + err
    for pe in ('myslope', 'alibi'):
        m = json.loads((runs/f'mirror__{pe}__s0'/'metrics.json').read_text())
        assert m['pe'] == pe and m['task'] == 'mirror' and 'acc_by_len' in m
    cfg = json.loads((runs/'mirror__myslope__s0'/'config.json').read_text())
    assert cfg['model']['pe'] == 'myslope'
    rc, out, err = posenc('figures', '--profile', prof, '--runs-dir', runs, '--out-dir', tmp_path/'fig')
    assert rc == 0 and (tmp_path/'fig'/'synthetic.png').is_file(), out + err
    rc, out, err = posenc('report', '--profile', prof, '--runs-dir', runs, '--figures-dir', tmp_path/'fig',
                          '--out-dir', tmp_path/'rep', '--formats', 'html')
    assert rc == 0, out + err
    md = (tmp_path/'rep'/'report.md').read_text()
    assert re.search(r'\| myslope \| s0 \|', md) and '## mirror' in md
    rc, out, err = posenc('pes', '--plugin', tmp_path/'plug'/'my_plugin.py')
    assert rc == 0 and 'myslope' in out, err
    rc, out, err = posenc('train', 'mirror', 'myslope', '--plugin', tmp_path/'plug'/'my_plugin.py', '--dry-run')
    assert rc == 0 and 'mirror__myslope__s0' in out, out + err

def test_bad_plugin_is_one_clear_error(tmp_path):
    (tmp_path/'broken.py').write_text('import torch\nraise RuntimeError("half-written")\n')
    rc, _, err = posenc('pes', '--plugin', tmp_path/'broken.py')
    assert rc == 1 and 'broken.py: importing it failed: RuntimeError: half-written' in err
    (tmp_path/'bad.toml').write_text('plugins = ["nothere.py"]\n[tasks.copy]\n')
    rc, _, err = posenc('status', '--profile', tmp_path/'bad.toml')
    assert rc == 1 and 'bad.toml' in err and 'nothere.py: no such file' in err
