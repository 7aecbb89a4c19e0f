"""Data-parallel training over two CPU processes (gloo) gives the loss curve and the weights of one process on the
combined batch; `torchrun -m posenc.cli train … --distributed` writes the usual run folder from rank 0 alone."""
import json, os, shutil, socket, subprocess, sys
from pathlib import Path
import pytest
import torch
import torch.multiprocessing as mp

ROOT = Path(__file__).resolve().parents[1]
STEPS, VOCAB, T = 8, 24, 12

def _model(dropout=0., seed=0):
    from posenc.models import build_model
    torch.manual_seed(seed)
    return build_model('lm', vocab_size=VOCAB, d_model=32, n_heads=4, n_layers=1, pe='rope', max_len=T, dropout=dropout)

def _batches(kind):
    "A step -> batch function: plain LM windows (8 rows), or 7 rows with a random loss mask (ranks get 4 and 3 rows"
    "and unequal numbers of targets)."
    from posenc.train import step_generator
    from posenc.tokenize import N_SPECIAL
    data = torch.randint(N_SPECIAL, VOCAB, (500,), generator=torch.Generator().manual_seed(1))
    B = 8 if kind == 'lm' else 7
    def get_batch(step):
        g = step_generator('test-ddp', kind, step)
        st = torch.randint(0, 500 - T - 1, (B,), generator=g)
        w = torch.stack([data[s:s + T + 1] for s in st.tolist()])
        b = dict(x=w[:, :-1], y=w[:, 1:])
        if kind == 'masked': b['loss_mask'] = torch.rand(B, T, generator=g) < 0.4
        return b
    return get_batch

def _train(kind, world=None):
    from posenc.train import TrainConfig, Trainer
    cfg = TrainConfig(lr=3e-3, warmup=2, schedule='cosine', max_steps=STEPS, log_every=1, progress=False, device='cpu')
    tr = Trainer(_model(), _batches(kind), cfg, world=world)
    tr.fit()
    return dict(loss=[r['train_loss'] for r in tr.log], tokens=tr.tokens,
                params={k: v.detach().clone() for k, v in tr.model.state_dict().items()})

class _Stop(Exception): pass

def _stop_at(k):
    def cb(tr):
        if tr.step == k: raise _Stop()
    return cb

def _resume(world, out):
    "With dropout: a 2-rank run stopped after step 5 (checkpoint at 4) and resumed equals the uninterrupted one."
    from posenc.train import TrainConfig, Trainer
    cfg = TrainConfig(lr=3e-3, warmup=2, max_steps=STEPS, log_every=1, ckpt_every=2, progress=False, device='cpu')
    full = Trainer(_model(0.1), _batches('lm'), cfg, out_dir=f'{out}/full', world=world); full.fit()
    part = Trainer(_model(0.1), _batches('lm'), cfg, out_dir=f'{out}/part', callbacks=[_stop_at(5)], world=world)
    try: part.fit()
    except _Stop: pass
    again = Trainer(_model(0.1, seed=9), _batches('lm'), cfg, out_dir=f'{out}/part', world=world); again.fit()
    return dict(full=[r['train_loss'] for r in full.log], again=[r['train_loss'] for r in again.log],
                resumed_from=again.resumed_from, same=all(torch.equal(a, b) for a, b in
                                                          zip(full.model.state_dict().values(), again.model.state_dict().values())))

def _worker(rank, port, out):
    torch.set_num_threads(1)
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE='2', MASTER_ADDR='127.0.0.1', MASTER_PORT=str(port))
    from posenc.distributed import init_distributed
    world = init_distributed('cpu')
    assert (world.rank, world.world_size, world.backend) == (rank, 2, 'gloo')
    try:
        res = {kind: _train(kind, world) for kind in ('lm', 'masked')}
        res['resume'] = _resume(world, out)
    finally: world.cleanup()
    torch.save(res, f'{out}/rank{rank}.pt')

def _free_port():
    with socket.socket() as s: s.bind(('127.0.0.1', 0)); return s.getsockname()[1]

@pytest.fixture(scope='module')
def two_ranks(tmp_path_factory):
    out = tmp_path_factory.mktemp('ddp')
    mp.start_processes(_worker, args=(_free_port(), str(out)), nprocs=2, join=True, start_method='spawn')
    return [torch.load(out/f'rank{r}.pt') for r in range(2)]

@pytest.mark.parametrize('kind', ['lm', 'masked'])
def test_two_processes_equal_one_on_the_combined_batch(two_ranks, kind):
    torch.set_num_threads(1)
    one = _train(kind)
    r0, r1 = two_ranks[0][kind], two_ranks[1][kind]
    assert len(r0['loss']) == STEPS and r0['loss'] == r1['loss']          # every rank logs the loss of the whole step
    assert r0['tokens'] == r1['tokens'] == one['tokens']                   # and counts the tokens of all ranks
    assert torch.allclose(torch.tensor(r0['loss']), torch.tensor(one['loss']), rtol=1e-4, atol=0)
    assert one['loss'][-1] < one['loss'][0] - 0.1                          # it did train
    for k, v in one['params'].items():
        assert torch.equal(r0['params'][k], r1['params'][k]), k            # the ranks hold the same weights
        assert torch.allclose(r0['params'][k], v, rtol=1e-4, atol=1e-5), k

def _have_shakespeare():
    try:
        from posenc.data import tinyshakespeare
        tinyshakespeare(download=False); return True
    except Exception: return False

@pytest.mark.skipif(shutil.which('torchrun') is None and not (Path(sys.executable).parent/'torchrun').exists(), reason="no torchrun")
@pytest.mark.skipif(not _have_shakespeare(), reason="Tiny Shakespeare not found (set POSENC_DATA)")
def test_torchrun_entry_point_writes_the_run_folder_from_rank_0(tmp_path):
    from posenc.recipes import run_experiment, check_run_dir, comparable
    from posenc.train import read_jsonl
    sets = dict(steps=6, d_model=32, n_layers=1, block_size=32, batch_size=8, dropout=0.0, eval_tokens=512,
                extrap_factors=[1, 2], attn_len=16, log_every=1, threads=1, device='cpu')
    torchrun = shutil.which('torchrun') or str(Path(sys.executable).parent/'torchrun')
    cmd = [torchrun, '--standalone', '--nproc_per_node', '2', '-m', 'posenc.cli', 'train', 'shakespeare', 'rope', '--distributed',
           '--seed', '0', '--runs-dir', str(tmp_path/'runs')] + [a for k, v in sets.items() for a in ('--set', f'{k}={json.dumps(v)}')]
    ddp = tmp_path/'runs'/'shakespeare__rope__s0'
    env = dict(os.environ, OMP_NUM_THREADS='1', PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get('PYTHONPATH', ''))
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=240, cwd=tmp_path)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    m = check_run_dir(ddp)
    cfg = json.loads((ddp/'config.json').read_text())
    assert cfg['world'] == dict(world_size=2, backend='gloo', device_type='cpu')
    assert sorted(os.listdir(ddp)) == ['attention.npz', 'checkpoints', 'config.json', 'log.jsonl', 'metrics.json']
    assert sorted(os.listdir(ddp/'checkpoints')) == ['best.pt', 'last.pt']
    assert r.stdout.count('RunResult(') == 1                                # rank 0 alone prints
    torch.set_num_threads(1)
    one = run_experiment('shakespeare', 'rope', 0, tmp_path/'one', **sets).metrics
    assert m['train_tokens'] == one['train_tokens'] and m['steps'] == one['steps'] == 6
    a = [x['train_loss'] for x in read_jsonl(ddp/'log.jsonl')]
    b = [x['train_loss'] for x in read_jsonl(tmp_path/'one'/'log.jsonl')]
    assert len(a) == 6 and torch.allclose(torch.tensor(a), torch.tensor(b), rtol=1e-4, atol=0)
    assert m['val_loss'] == pytest.approx(one['val_loss'], rel=1e-4)

def test_two_processes_resume_exactly(two_ranks, tmp_path):
    from posenc.train import read_jsonl
    for r in two_ranks:
        res = r['resume']
        assert res['resumed_from'] == 4 and res['same'] and res['again'] == res['full'], res
    assert two_ranks[0]['resume']['full'] != two_ranks[0]['lm']['loss']   # dropout was on
