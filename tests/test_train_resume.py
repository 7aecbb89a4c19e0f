"""A run killed with SIGKILL mid-way and started again finishes with the same metrics as an uninterrupted run,
and a finished run folder satisfies the run-folder contract. (Needs the Tiny Shakespeare file; skipped without it.)"""
import json, os, signal, subprocess, sys, time
from pathlib import Path
import pytest
from posenc.train import read_jsonl, load_checkpoint

PARAMS = dict(steps=150, ckpt_every=10, log_every=5, eval_every=50, d_model=32, block_size=64, batch_size=16,
              eval_tokens=1024, extrap_factors=[1, 2], threads=1, dropout=0.1)
SCRIPT = ("import json, sys; from posenc.recipes import run_experiment; "
          "run_experiment('shakespeare', 'alibi', 3, sys.argv[1], profile='test', **json.loads(sys.argv[2]))")

def _have_data():
    try:
        from posenc.data import tinyshakespeare
        tinyshakespeare(download=False); return True
    except Exception: return False

pytestmark = pytest.mark.skipif(not _have_data(), reason="Tiny Shakespeare not found (set POSENC_DATA)")

def _start(run_dir): return subprocess.Popen([sys.executable, '-c', SCRIPT, str(run_dir), json.dumps(PARAMS)])

def _strip_log(log): return [{k: v for k, v in r.items() if k not in ('time', 'tok_per_s')} for r in log]

def test_sigkill_and_resume_equals_uninterrupted(tmp_path):
    from posenc.recipes import comparable, check_run_dir
    full, killed = tmp_path/'full', tmp_path/'killed'
    p_full = _start(full)
    p = _start(killed)
    t0 = time.time()
    while time.time() - t0 < 120:                       # kill once a checkpoint exists and training has moved on
        log = read_jsonl(killed/'log.jsonl')
        if log and log[-1]['step'] >= 25 or p.poll() is not None: break
        time.sleep(0.005)
    if p.poll() is not None: pytest.fail("the run finished before it could be killed; raise PARAMS['steps']")
    os.kill(p.pid, signal.SIGKILL); p.wait()
    assert not (killed/'metrics.json').exists()
    ck = load_checkpoint(killed/'checkpoints/last.pt')['step']
    assert 10 <= ck < PARAMS['steps']
    assert p_full.wait(timeout=300) == 0
    assert _start(killed).wait(timeout=300) == 0
    a, b = check_run_dir(full), check_run_dir(killed)
    assert b['resumed_from'] == ck
    assert comparable(a) == comparable(b)
    assert _strip_log(read_jsonl(full/'log.jsonl')) == _strip_log(read_jsonl(killed/'log.jsonl'))
    cfg = json.loads((killed/'config.json').read_text())
    assert cfg['profile'] == 'test' and cfg['model']['pe'] == 'alibi' and cfg['params']['steps'] == PARAMS['steps']
