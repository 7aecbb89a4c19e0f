"""The sweep end to end: the smoke profile through papermill, killing and restarting, failures, and the templates'
`parameters` tag surviving `nbdev_clean`."""
import json, os, shutil, signal, subprocess, sys, textwrap, time
from pathlib import Path
import pytest
from posenc.sweep import (PROFILES, TASK_TEMPLATES, get_profile, plan, sweep, run_state, template_path,
                          template_params, templates_dir)
from posenc.testing import toy_template
from posenc.data import project_root
from posenc.results import load_runs

ROOT = project_root()
TEMPLATES = sorted(templates_dir().glob('*.ipynb'))


def _no_abs_paths(text, *paths):
    for p in paths: assert str(p) not in text, f"absolute path {p} left in the file"


# --- the templates -------------------------------------------------------------------------------------------------

def test_every_task_has_a_template():
    for t in TASK_TEMPLATES: assert template_path(t).is_file(), t
    assert {p.stem for p in TEMPLATES} == set(TASK_TEMPLATES.values())


@pytest.mark.parametrize('nb', TEMPLATES, ids=lambda p: p.name)
def test_nbdev_clean_keeps_parameters_tag(nb, tmp_path):
    "settings.ini's `allowed_cell_metadata_keys = tags` keeps papermill's tag through nbdev_clean."
    copy = tmp_path/nb.name
    shutil.copy(nb, copy)
    r = subprocess.run([str(Path(sys.executable).parent/'nbdev_clean'), '--fname', str(copy)], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    cells = json.loads(copy.read_text())['cells']
    tagged = [c for c in cells if 'parameters' in c.get('metadata', {}).get('tags', [])]
    assert len(tagged) == 1
    params = template_params(copy)
    assert {'task', 'pe', 'seed', 'profile', 'out_dir'} <= set(params)
    assert all(v['help'] for v in params.values()), "every parameter has a trailing comment"
    src = ''.join(tagged[0]['source'])
    for group in ('# model', '# data', '# train', '# eval'): assert group in src, group


def test_templates_are_committed_clean():
    "The committed templates carry no outputs or execution counts (they are executed only into run folders)."
    for nb in TEMPLATES:
        for c in json.loads(nb.read_text())['cells']:
            if c['cell_type'] == 'code': assert not c.get('outputs') and c.get('execution_count') is None, nb.name


# --- the smoke profile through papermill -------------------------------------------------------------------------

def test_smoke_profile_end_to_end(tmp_path):
    prof = get_profile('smoke')
    if prof['missing']: pytest.skip(f"corpora missing on this machine: {prof['missing']}")
    assert {TASK_TEMPLATES[t] for t in prof['tasks']} == set(TASK_TEMPLATES.values()), "smoke runs every template"
    rd = tmp_path/'runs'/'smoke'
    t0 = time.time()
    res = sweep('smoke', rd, workers=2, every=1e9)
    print(f"smoke profile: {len(res['finished'])} runs in {time.time() - t0:.0f} s")
    jobs = plan('smoke')
    assert sorted(res['finished']) == sorted(j.name for j in jobs) and not res['failed']
    runs = load_runs(rd, status='done')
    assert len(runs) == len(jobs) and {r['pe'] for r in runs} == set(prof['pes'])
    for r in runs:
        d = r['dir']
        for f in ('config.json', 'log.jsonl', 'metrics.json', 'run.ipynb'): assert (d/f).is_file(), (d, f)
        for k in ('status', 'task', 'kind', 'pe', 'seed', 'wall_s', 'train_tokens', 'tok_per_s', 'params', 'val_loss'): assert k in r['metrics']
        cfg = r['config']
        assert cfg['profile'] == 'smoke' and cfg['model'] and 'git_commit' in cfg and cfg['versions'] and cfg['machine']
        nb = (d/'run.ipynb').read_text()
        _no_abs_paths(nb, ROOT, tmp_path, Path.home())
        meta = json.loads(nb)['metadata']['papermill']
        assert meta['input_path'].startswith('nbs/experiments/') and meta['parameters']['out_dir'] == '.'
        assert meta['exception'] is None
    assert not [p for p in (rd/'.partial').iterdir() if p.name != 'sweep.lock']
    again = sweep('smoke', rd, workers=2, quiet=True)         # everything finished: nothing runs again
    assert len(again['skipped']) == len(jobs) and not again['finished']


# --- killing and restarting ----------------------------------------------------------------------------------------

DRIVER = textwrap.dedent('''
    import sys
    from posenc.sweep import sweep
    prof = dict(name='toy', tasks={'toy': dict(sleep=float(sys.argv[3]), hold=sys.argv[4], child=True)},
                pes=['rope', 'alibi', 'none'], seeds=[0])
    r = sweep(prof, sys.argv[1], workers=1, templates={'toy': sys.argv[2]}, every=1)
    sys.exit(130 if r['stopped'] else 0)
''')


def _start(rd, toy, sleep, hold=''):
    "A sweep of the toy template (rope, alibi, none) in a process of its own; each run's kernel starts a child process."
    return subprocess.Popen([sys.executable, '-c', DRIVER, str(rd), str(toy), str(sleep), str(hold)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def _wait(cond, timeout=90, what=''):
    t0 = time.time()
    while not cond():
        if time.time() - t0 > timeout: raise TimeoutError(what)
        time.sleep(0.1)


def _steps(stage):
    try: return len((stage/'log.jsonl').read_text().splitlines())
    except OSError: return 0


def _procs_in(folder):
    "Processes whose working directory is inside `folder` (a worker, a kernel or a kernel's child left running would be one)."
    out = []
    for p in Path('/proc').iterdir():
        if not p.name.isdigit(): continue
        try: cwd = os.readlink(p/'cwd')
        except OSError: continue
        try: zombie = (p/'stat').read_text().rsplit(')', 1)[1].split()[0] == 'Z'
        except (OSError, IndexError): zombie = True
        if cwd.startswith(str(folder)) and not zombie: out.append(int(p.name))
    return out


@pytest.mark.skipif(not Path('/proc').is_dir(), reason='needs /proc')
def test_kill_and_restart(tmp_path):
    "SIGTERM, then SIGKILL of the sweep: nothing left running, nothing published after the sweep is gone, the restart finishes."
    toy, rd = toy_template(tmp_path/'toy.ipynb'), tmp_path/'runs'
    names = ['toy__rope__s0', 'toy__alibi__s0', 'toy__none__s0']
    first, second = (rd/n for n in names[:2])
    stage2 = rd/'.partial'/names[1]
    hold, held = tmp_path/'hold-{pe}', tmp_path/'hold-alibi'
    held.touch()   # the alibi run waits at its step 5 while this file exists: no race with the run's own end

    # 1. SIGTERM while the second run is half way: the first stays finished, the second stays in .partial/
    p = _start(rd, toy, 1, hold)
    _wait(lambda: (first/'metrics.json').exists() and _steps(stage2) >= 5, what='second run under way')
    stamp = (first/'metrics.json').stat().st_mtime_ns
    p.send_signal(signal.SIGTERM)
    out = p.communicate(timeout=60)[0]
    assert p.returncode == 130, out
    assert 'stopped' in out
    _wait(lambda: not _procs_in(rd), timeout=10, what='workers, kernels and their children gone after SIGTERM')
    assert run_state(rd, names[1]) == 'interrupted' and not second.exists()

    # 2. restart, SIGKILL the sweep itself as soon as the second run's new attempt exists (its kernel may be starting
    #    or running), then let that run go on: a worker or kernel that outlived the sweep would now finish and publish it
    ino = stage2.stat().st_ino
    p = _start(rd, toy, 1, hold)
    def again():
        try: return stage2.stat().st_ino != ino and _steps(stage2) >= 5
        except OSError: return False
    _wait(again, what='second run under way again')
    p.kill(); p.communicate(timeout=30)
    held.unlink()
    _wait(lambda: not _procs_in(rd), timeout=10, what='workers, kernels and their children gone after SIGKILL')
    assert run_state(rd, names[1]) == 'interrupted' and not (second/'metrics.json').exists()
    assert [r['name'] for r in load_runs(rd, status='done')] == [names[0]]   # nothing half-written counts

    # 3. restart to the end: the finished run is not redone, the interrupted one completes
    p = _start(rd, toy, 0.5, hold)
    out = p.communicate(timeout=120)[0]
    assert p.returncode == 0, out
    assert (first/'metrics.json').stat().st_mtime_ns == stamp
    assert (first/'attempts.txt').read_text() == 'done\n'
    for n in names: assert run_state(rd, n) == 'finished', n
    assert sorted(r['name'] for r in load_runs(rd, status='done')) == sorted(names)
    assert not [x for x in (rd/'.partial').iterdir() if x.name != 'sweep.lock']
    assert not _procs_in(rd)


@pytest.mark.skipif(not Path('/proc').is_dir(), reason='needs /proc')
def test_ctrl_c_stops_everything(tmp_path):
    "Ctrl-C (SIGINT to the sweep): the held run stops resumably, its worker, kernel and the kernel's child are gone."
    toy, rd = toy_template(tmp_path/'toy.ipynb'), tmp_path/'runs'
    hold = tmp_path/'hold-{pe}'
    for pe in ('rope', 'alibi', 'none'): (tmp_path/f'hold-{pe}').touch()
    stage = rd/'.partial'/'toy__rope__s0'
    p = _start(rd, toy, 0.5, hold)
    _wait(lambda: _steps(stage) >= 5 and len(_procs_in(rd)) >= 3, what='the run held, with its kernel and its child')
    p.send_signal(signal.SIGINT)
    out = p.communicate(timeout=60)[0]
    assert p.returncode == 130 and 'stopped toy__rope__s0 (resumes next time)' in out, out
    _wait(lambda: not _procs_in(rd), timeout=10, what='workers, kernels and their children gone after Ctrl-C')
    assert run_state(rd, 'toy__rope__s0') == 'interrupted'


RESUME_DRIVER = textwrap.dedent('''
    import json, sys
    from posenc.sweep import sweep
    r = sweep(json.loads(sys.argv[2]), sys.argv[1], workers=1, every=1)
    sys.exit(130 if r['stopped'] else 0)
''')


def test_interrupted_run_resumes_from_its_checkpoint(tmp_path):
    "A real run stopped after a checkpoint carries on from it in the next sweep (the recipe resumes from checkpoints/last.pt)."
    rd = tmp_path/'runs'
    prof = dict(name='resume', pes=['rope'], seeds=[0],
                tasks={'copy': dict(steps=300, ckpt_every=20, log_every=10, n_train=300, n_test_per_length=2, train_max_len=4)})
    stage = rd/'.partial'/'copy__rope__s0'
    p = subprocess.Popen([sys.executable, '-c', RESUME_DRIVER, str(rd), json.dumps(prof)], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    _wait(lambda: (stage/'checkpoints'/'last.pt').exists() and _steps(stage) >= 5, timeout=120, what='a checkpoint')
    p.send_signal(signal.SIGTERM)
    out = p.communicate(timeout=60)[0]
    assert p.returncode == 130, out
    p = subprocess.Popen([sys.executable, '-c', RESUME_DRIVER, str(rd), json.dumps(prof)], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    out = p.communicate(timeout=300)[0]
    assert p.returncode == 0 and '(resuming)' in out, out
    m = json.loads((rd/'copy__rope__s0'/'metrics.json').read_text())
    assert m['resumed_from'] and 0 < m['resumed_from'] < 300 and m['steps'] == 300


def test_second_sweep_on_same_folder_is_refused(tmp_path):
    toy, rd = toy_template(tmp_path/'toy.ipynb'), tmp_path/'runs'
    p = _start(rd, toy, 3)
    try:
        _wait(lambda: (rd/'.partial'/'sweep.lock').exists() and 'pid' in (rd/'.partial'/'sweep.lock').read_text(), what='lock')
        prof = dict(name='toy', tasks={'toy': {}}, pes=['rope'], seeds=[0])
        with pytest.raises(RuntimeError, match=rf'another sweep is running on .* \(pid {p.pid} on '):
            sweep(prof, rd, templates={'toy': toy}, quiet=True)
    finally:
        p.kill(); p.communicate(timeout=30)


# --- failures --------------------------------------------------------------------------------------------------------

def test_failed_run_is_recorded_and_others_finish(tmp_path):
    "An unknown encoding fails in the real template's recipe; the run gets error.json, the other run finishes."
    rd = tmp_path/'runs'
    prof = dict(name='fail', tasks={'copy': dict(steps=4, n_train=200, n_test_per_length=2, train_max_len=3)},
                pes=['bogus', 'rope'], seeds=[0])
    res = sweep(prof, rd, workers=2, quiet=True)
    assert res['failed'] == ['copy__bogus__s0'] and res['finished'] == ['copy__rope__s0']
    d = rd/'copy__bogus__s0'
    err = json.loads((d/'error.json').read_text())
    assert err['status'] == 'failed' and "Unknown positional encoding 'bogus'" in err['error']
    assert not (d/'metrics.json').exists() and (d/'run.ipynb').exists()
    _no_abs_paths((d/'error.json').read_text() + (d/'run.ipynb').read_text(), ROOT, tmp_path)
    assert [r['name'] for r in load_runs(rd, status='done')] == ['copy__rope__s0']
    assert [(r['pe'], r['status']) for r in load_runs(rd)] == [('rope', 'done'), ('bogus', 'failed')]
    again = sweep(prof, rd, workers=2, quiet=True, retry_failed=False)
    assert sorted(again['skipped']) == ['copy__bogus__s0', 'copy__rope__s0']


def test_unknown_parameter_fails_before_anything_runs(tmp_path):
    prof = dict(name='bad', tasks={'copy': dict(stepz=4)}, pes=['rope'], seeds=[0])
    with pytest.raises(ValueError, match=r'no parameter\(s\) stepz'):
        sweep(prof, tmp_path/'runs', quiet=True)
    assert not (tmp_path/'runs'/'copy__rope__s0').exists()


def test_profiles_are_well_formed():
    for name, p in PROFILES.items():
        assert p['description'] and p['seeds'] and p['tasks'], name
        for t, params in p['tasks'].items():
            assert not set(params) - set(template_params(template_path(t))), (name, t)
    assert len(PROFILES['full']['seeds']) >= 3


def test_profiles_come_from_the_toml_files(tmp_path):
    from posenc.sweep import profiles_dir, load_profile, check_profile
    files = sorted(profiles_dir().glob('*.toml'))
    assert {f.stem for f in files} == set(PROFILES) >= {'smoke', 'default', 'full', 'gpu', 'nanogpt'}
    for f in files: assert check_profile(load_profile(f), f) == PROFILES[f.stem]
    (tmp_path/'x.toml').write_text('pes = ["rope"]\n[tasks.copy]\n[tasks.sortt]\n')
    with pytest.raises(ValueError, match=r"x.toml: unknown task\(s\) 'sortt'. Valid tasks: "): get_profile(tmp_path/'x.toml')

def test_gpu_rung_plans_a_profile_into_its_recipe_folders(tmp_path):
    "tools/gpu_rung.py --profile: a task at recipe version 2 goes to <out>/recipe-2/, one at version 1 to <out>; mixed arguments are refused."
    prof = tmp_path/'p.toml'
    prof.write_text('description = "two versions"\npes = ["none"]\nseeds = [0]\n'
                    '[tasks.copy]\nrecipe = 2\nearlier = {1 = {lr = 1e-3}}\n[tasks.reverse]\n')
    tool = [sys.executable, str(ROOT/'tools'/'gpu_rung.py')]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run(tool + ['--profile', str(prof), '--out', str(tmp_path/'runs'), '--dry_run'],
                       capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert f"{tmp_path/'runs'/'recipe-2'/'copy__none__s0'}  recipe 2" in r.stdout
    assert f"{tmp_path/'runs'/'reverse__none__s0'}  recipe 1" in r.stdout
    r = subprocess.run(tool + ['transfer', 'mt-budget4x', '--profile', str(prof)], capture_output=True, text=True, env=env)
    assert r.returncode == 2 and 'not both' in r.stderr
