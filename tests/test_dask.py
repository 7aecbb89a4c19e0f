"""Sweeps on a real Dask cluster (a `dask scheduler` and two `dask worker` processes on 127.0.0.1): runs complete,
a worker killed in the middle of a run loses nothing, and a wrong scheduler address fails at once."""
import json, os, signal, subprocess, sys, textwrap, time
from pathlib import Path
import pytest
distributed = pytest.importorskip('distributed')
from posenc.sweep import run_state
from posenc.results import load_runs
from posenc.testing import toy_template

ENV = {**os.environ, 'OMP_NUM_THREADS': '1'}
_SCRIPT = Path(sys.executable).parent/'posenc'
POSENC = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, '-c', 'import sys; from posenc.cli import main; sys.exit(main())']


def _wait(cond, timeout=60, what=''):
    t0 = time.time()
    while not cond():
        if time.time() - t0 > timeout: raise TimeoutError(what)
        time.sleep(0.1)


class Cluster:
    "A Dask scheduler and workers, each a real process of its own (workers without a nanny: killing one kills it)."
    def __init__(self, folder:Path):
        self.folder, self.file, self.procs, self.workers = folder, folder/'scheduler.json', [], {}
        self._start('scheduler', 'distributed.cli.dask_scheduler', '--host', '127.0.0.1', '--port', '0', '--no-dashboard',
                    '--scheduler-file', self.file)
        _wait(lambda: self.file.exists() and 'address' in self.file.read_text(), what='the scheduler')
        self.address = json.loads(self.file.read_text())['address']
        self.client = distributed.Client(scheduler_file=str(self.file), timeout=30)

    def _start(self, name, module, *args):
        with open(self.folder/f'{name}.log', 'w') as log:
            p = subprocess.Popen([sys.executable, '-m', module, *map(str, args)], stdout=log, stderr=subprocess.STDOUT, env=ENV)
        self.procs.append(p)
        return p

    def add_worker(self, name):
        self.workers[name] = self._start(name, 'distributed.cli.dask_worker', '--scheduler-file', self.file, '--nthreads', 1,
                                         '--nworkers', 1, '--no-nanny', '--no-dashboard', '--host', '127.0.0.1', '--name', name)

    def wait_for(self, n): self.client.wait_for_workers(n, timeout=60); _wait(lambda: len(self.client.nthreads()) == n, what=f'{n} workers')

    def close(self):
        self.client.close()
        for p in self.procs:
            if p.poll() is None: p.kill()   # nothing of theirs is worth a graceful shutdown here
        for p in self.procs: p.wait()


@pytest.fixture(scope='module')
def cluster(tmp_path_factory):
    c = Cluster(tmp_path_factory.mktemp('dask'))
    try:
        c.add_worker('a'); c.add_worker('b'); c.wait_for(2)
        yield c
    finally: c.close()


@pytest.fixture(scope='module')
def toy(tmp_path_factory): return toy_template(tmp_path_factory.mktemp('toy')/'toy.ipynb')


def _procs_in(folder):
    "Processes whose working directory is inside `folder` (a worker process or kernel left running would be one)."
    out = []
    for p in Path('/proc').iterdir():
        try: cwd = os.readlink(p/'cwd') if p.name.isdigit() else ''
        except OSError: continue
        if cwd.startswith(str(folder)): out.append(int(p.name))
    return out


def _complete(rd, names):
    "Every run finished in place with its files, and nothing left under way."
    for n in names:
        d = rd/n
        assert run_state(rd, n) == 'finished', n
        for f in ('config.json', 'log.jsonl', 'metrics.json', 'run.ipynb'): assert (d/f).is_file(), (n, f)
        assert not (d/'.attempt').exists()
    assert sorted(p.name for p in rd.iterdir() if p.name != '.partial') == sorted(names)   # one copy each, no trash
    assert [p.name for p in (rd/'.partial').iterdir()] == ['sweep.lock']


def test_sweep_on_two_workers(cluster, toy, tmp_path, capsys):
    from posenc.sweep import sweep
    rd = tmp_path/'runs'
    prof = dict(name='toy', tasks={'toy': dict(sleep=0.2)}, pes=['rope', 'alibi'], seeds=[0])
    res = sweep(prof, rd, templates={'toy': toy}, scheduler=cluster.address, every=1e9)
    out = capsys.readouterr().out
    names = ['toy__rope__s0', 'toy__alibi__s0']
    assert sorted(res['finished']) == sorted(names) and not res['failed'] and not res['stopped'], out
    _complete(rd, names)
    runs = load_runs(rd, status=None)
    assert len(runs) == len(names), [r['name'] for r in runs]
    for r in runs: assert r['status'] == 'done' and r['metrics']['resumed_from'] == 0 and r['config']['pe'] == r['pe']
    assert f'on the Dask scheduler at {cluster.address} (2 worker(s), 2 slot(s) now)' in out, out
    where = {l.split(' on ')[1].split()[0] for l in out.splitlines() if ' start ' in l}
    assert where == set(cluster.client.nthreads()), out   # both workers ran runs
    assert 'sweep toy: 2 finished, 0 failed, 0 skipped' in out
    again = sweep(prof, rd, templates={'toy': toy}, scheduler=cluster.address, quiet=True)
    assert sorted(again['skipped']) == sorted(names) and not again['finished']


DRIVER = textwrap.dedent('''
    import sys
    from posenc.sweep import sweep
    prof = dict(name='toy', tasks={'toy': dict(sleep=4., hold=sys.argv[4])}, pes=['rope'], seeds=[0])
    r = sweep(prof, sys.argv[1], templates={'toy': sys.argv[2]}, scheduler=sys.argv[3], every=1)
    sys.exit(130 if r['stopped'] else 0 if r['finished'] == ['toy__rope__s0'] else 1)
''')


def _step(stage):
    try: return json.loads((stage/'checkpoints'/'last.json').read_text())['step']
    except (OSError, ValueError): return 0


def _driver(rd, toy, cluster, hold=''):
    return subprocess.Popen([sys.executable, '-c', DRIVER, str(rd), str(toy), cluster.address, str(hold)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=ENV)


@pytest.mark.skipif(not Path('/proc').is_dir(), reason='needs /proc')
def test_stopped_sweep_leaves_its_run_resumable(cluster, toy, tmp_path):
    "SIGTERM to a Dask sweep stops its runs on the workers (through Client.run): they stay in .partial/, resumable."
    rd, name, held = tmp_path/'runs', 'toy__rope__s0', tmp_path/'hold-rope'
    held.touch()   # the run waits at its step 5 while this file exists: it cannot end before the stop reaches it
    p = _driver(rd, toy, cluster, tmp_path/'hold-{pe}')
    try:
        _wait(lambda: _step(rd/'.partial'/name) >= 5, timeout=90, what='the run held at step 5')
        p.send_signal(signal.SIGTERM)
        out = p.communicate(timeout=60)[0]
    finally:
        if p.poll() is None: p.kill(); p.communicate()
    assert p.returncode == 130 and f'stopped {name} (resumes next time)' in out, out
    assert run_state(rd, name) == 'interrupted' and (rd/'.partial'/name/'checkpoints').is_dir()
    _wait(lambda: not _procs_in(rd), timeout=15, what='the run stopped on its worker')


@pytest.mark.skipif(not Path('/proc').is_dir(), reason='needs /proc')
def test_killed_worker_loses_nothing(cluster, toy, tmp_path):
    "SIGKILL the worker running a run half way: Dask gives the task to the other worker, which resumes the run."
    rd, name, held = tmp_path/'runs', 'toy__rope__s0', tmp_path/'hold-rope'
    stage = rd/'.partial'/name
    held.touch()   # the run waits at its step 5 while this file exists: it cannot end before its worker is killed
    p = _driver(rd, toy, cluster, tmp_path/'hold-{pe}')
    step = lambda: _step(stage)
    try:
        _wait(lambda: step() >= 5, timeout=90, what='the run held half way')
        child = int((rd/'.partial'/f'{name}.lock').read_text().split()[2])   # '<host> pid <pid>': the run's worker process
        parent = int(next(l for l in Path(f'/proc/{child}/status').read_text().splitlines() if l.startswith('PPid:')).split()[1])
        victim = next(n for n, w in cluster.workers.items() if w.pid == parent)
        cluster.workers[victim].send_signal(signal.SIGKILL)
        killed_at = step()
        held.unlink()
        out = p.communicate(timeout=120)[0]
    finally:
        if p.poll() is None: p.kill(); p.communicate()
        cluster.workers.pop(victim, None) if 'victim' in locals() else None
    assert p.returncode == 0, out
    starts = [l for l in out.splitlines() if ' start ' in l]
    assert len(starts) == 2 and '(again: its worker was lost; resuming)' in starts[1], out
    assert starts[0].split(' on ')[1].split()[0] != starts[1].split(' on ')[1].split()[0], out   # on the other worker
    _complete(rd, [name])
    m = json.loads((rd/name/'metrics.json').read_text())
    assert m.pop('resumed_from') == 5 == killed_at, (m, killed_at)                          # from the checkpoint
    assert m == dict(status='ok', task='toy', pe='rope', seed=0, kind='synthetic', steps=10)  # what a clean run writes
    steps = [json.loads(l)['step'] for l in (rd/name/'log.jsonl').read_text().splitlines()]
    assert sorted(set(steps)) == list(range(1, 11)), steps                                  # the log carried on
    assert (rd/name/'attempts.txt').read_text() == 'done\n'                                 # one attempt ran to the end
    _wait(lambda: not _procs_in(rd), timeout=15, what='no process of the killed attempt left')


@pytest.mark.skipif(not Path('/proc').is_dir(), reason='needs /proc')
def test_killed_client_stops_its_runs(cluster, toy, tmp_path):
    "SIGKILL the sweep (the Dask client) with a run under way: the run stops on its worker within seconds, never published."
    rd, name, held = tmp_path/'runs', 'toy__rope__s0', tmp_path/'hold-rope'
    held.touch()   # the run waits at its step 5 while this file exists
    p = _driver(rd, toy, cluster, tmp_path/'hold-{pe}')
    try:
        _wait(lambda: _step(rd/'.partial'/name) >= 5 and _procs_in(rd), timeout=90, what='the run held at step 5')
        p.kill(); p.communicate(timeout=30)
    finally:
        if p.poll() is None: p.kill(); p.communicate()
    held.unlink()   # a run that outlived its sweep would now go on to the end
    _wait(lambda: not _procs_in(rd), timeout=15, what="the run stopped on its worker after its client's death")
    assert run_state(rd, name) == 'interrupted' and not (rd/name).exists()
    assert (rd/'.partial'/name/'checkpoints').is_dir()   # resumable


def test_bad_scheduler_address_fails_at_once(tmp_path):
    # the connection is refused at once (the client's own limit is 10 s); the limit here only stops a hang, and leaves room
    # for Python and torch to start on a machine whose cores are busy (60 s was not enough there)
    r = subprocess.run(POSENC + ['sweep', '--profile', 'smoke', '--tasks', 'copy', '--pes', 'rope', '--runs-dir', str(tmp_path),
                                 '--scheduler', 'tcp://127.0.0.1:1'], capture_output=True, text=True, env=ENV, timeout=600)
    assert r.returncode == 1 and 'posenc sweep: no Dask scheduler answers at tcp://127.0.0.1:1' in r.stderr, r.stderr
    assert not list(tmp_path.glob('copy__*'))


def test_local_engine_does_not_import_dask():
    r = subprocess.run([sys.executable, '-c', "import sys; from posenc.cli import main; main(['status', '--profile', 'smoke']); "
                        "print('distributed' in sys.modules, 'dask' in sys.modules)"], capture_output=True, text=True, env=ENV)
    assert r.stdout.strip().splitlines()[-1] == 'False False', r.stdout + r.stderr
