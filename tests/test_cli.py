"""The `posenc` console script: every subcommand parses and dispatches, and `posenc run` goes sweep → figures → report."""
import json, re, subprocess, sys, time
from pathlib import Path
import pytest
from posenc.encodings import pe_names

_SCRIPT = Path(sys.executable).parent/'posenc'
CMD = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, '-c', 'import sys; from posenc.cli import main; sys.exit(main())']


def posenc(*args, timeout=300):
    r = subprocess.run(CMD + [str(a) for a in args], capture_output=True, text=True, timeout=timeout)
    return r.returncode, r.stdout, r.stderr


def test_help_lists_every_command():
    rc, out, _ = posenc('--help')
    assert rc == 0
    for c in ('run', 'sweep', 'train', 'status', 'figures', 'report', 'bench', 'pes'): assert f'  {c} ' in out, c


def test_unknown_command():
    rc, _, err = posenc('trian')
    assert rc == 2 and "unknown command 'trian'" in err


def test_pes_lists_the_registry():
    t0 = time.time()
    rc, out, _ = posenc('pes')
    assert rc == 0
    assert [l.split()[0] for l in out.splitlines()] == pe_names()
    print(f"posenc pes: {time.time() - t0:.1f} s")


def test_subcommand_help_comes_from_docments():
    rc, out, _ = posenc('sweep', '--help')
    assert rc == 0 and 'only these encodings, comma-separated' in out and '--skip_failed' in out


def test_sweep_dry_run_and_status(tmp_path):
    rc, out, _ = posenc('sweep', '--profile', 'smoke', '--dry-run', '--pes', 'alibi', '--tasks', 'copy', '--runs-dir', tmp_path)
    assert rc == 0 and 'copy__alibi__s0' in out
    assert not (tmp_path/'copy__alibi__s0').exists()
    rc, out, _ = posenc('status', '--profile', 'smoke', '--runs-dir', tmp_path)
    assert rc == 0 and '0 finished' in out


def test_bad_profile_is_reported():
    rc, _, err = posenc('sweep', '--profile', 'fast', '--dry-run')
    assert rc == 1 and 'Valid profiles: smoke, default, full, gpu' in err


def test_train_dry_run_prints_one_job(tmp_path):
    rc, out, err = posenc('train', 'copy', 'alibi', '--seed', '2', '--set', 'steps=20', '--set', 'lr=1e-3', '--dry-run', '--runs-dir', tmp_path)
    assert rc == 0, err
    assert 'sweep adhoc: 1 runs' in out and 'copy__alibi__s2' in out and "{'steps': 20, 'lr': 0.001}" in out
    assert not (tmp_path/'copy__alibi__s2').exists()


def test_user_profile_file(tmp_path):
    (tmp_path/'mine.toml').write_text('pes = ["rope"]\nseeds = [0, 1]\n[common]\nsteps = 10\n[tasks.copy]\n')
    rc, out, err = posenc('sweep', '--profile', tmp_path/'mine.toml', '--dry-run', '--runs-dir', tmp_path/'runs')
    assert rc == 0, err
    assert 'sweep mine: 2 runs' in out and 'copy__rope__s1' in out
    (tmp_path/'bad.toml').write_text('[tasks.copy]\nstesp = 10\n')
    rc, _, err = posenc('status', '--profile', tmp_path/'bad.toml')
    assert rc == 1 and 'bad.toml' in err and 'stesp' in err and 'Its parameters: ' in err


def test_bench_help_lists_its_options():
    "`posenc bench` is parsed like the other commands: -h lists every option with its default."
    rc, out, _ = posenc('bench', '--help')
    assert rc == 0 and 'usage: posenc bench' in out
    h = ' '.join(out.split())
    for opt in ('--out', '--figure', '--quick', '--device', '--kinds', '--lengths', '--pes', '--threads', '--warmup', '--reps',
                '--tokens', '--no_xt', '--no_memory', '--no_decode', '--merge', '--table', '--mfu', '--profile', '--tasks', '--steps'):
        assert f'{opt} ' in h, opt
    for d in ('(default: lm seq2seq)', '(default: 128 512 2048)', '(default: 4096)', '(default: full)', '(default: shakespeare ted-tatoeba)'):
        assert d in h, d


def test_bench_table_and_bad_kind(tmp_path):
    "`--table` prints a committed run's tables; a bad --kinds fails with the valid ones (no traceback)."
    runs = sorted((Path(__file__).resolve().parents[1]/'runs'/'bench').glob('*/bench.json'))
    if runs:
        rc, out, err = posenc('bench', '--table', runs[0])
        assert rc == 0 and '| pe | T |' in out, err
    rc, _, err = posenc('bench', '--kinds', 'lm', 'encoder', '--out', tmp_path/'b.json')
    assert rc == 1 and 'posenc bench: --kinds encoder: valid kinds are lm, seq2seq' in err, err


def test_dask_options_written_once_listed_by_sweep_and_run():
    from fastcore.docments import docments
    from posenc.cli import dask_options, sweep, run
    shared = docments(dask_options, full=True, returns=False)
    assert len(shared) == 8 and all(d.docment for d in shared.values())
    for cmd in ('sweep', 'run'):
        rc, out, _ = posenc(cmd, '-h')
        h = ' '.join(out.split())
        assert rc == 0 and 'dask options:' in h
        for k, d in shared.items(): assert f'--{k} {k.upper()} {d.docment}' in h, (cmd, k)
    src = (Path(__file__).resolve().parents[1]/'posenc'/'cli.py').read_text()
    for k in shared: assert len(re.findall(rf'\b{k}:\w+=', src)) == 1, k        # each written (with its type and default) once


def test_train_distributed_dry_run(tmp_path):
    rc, out, err = posenc('train', 'copy', 'rope', '--distributed', '--set', 'steps=3', '--dry-run', '--runs-dir', tmp_path)
    assert rc == 0, err
    assert f'{tmp_path}/copy__rope__s0: copy rope seed 0, data-parallel over 1 process(es)' in out and "'steps': 3" in out


def test_run_main_job(tmp_path):
    "The main job on a sliver of the smoke profile: one run, its figures and an HTML report."
    pytest.importorskip('posenc.figures'); pytest.importorskip('posenc.report')
    d = {k: tmp_path/k for k in ('runs', 'figures', 'report')}
    rc, out, err = posenc('run', '--profile', 'smoke', '--pes', 'rope', '--tasks', 'copy', '--formats', 'html',
                          '--runs-dir', d['runs'], '--figures-dir', d['figures'], '--report-dir', d['report'], timeout=600)
    assert rc == 0, out + err
    assert (d['runs']/'copy__rope__s0'/'metrics.json').is_file()
    assert '1/3 sweep' in out and '2/3 figures' in out and '3/3 report' in out and 'Open the report' in out
    html = [l.split('html: ')[1].strip() for l in out.splitlines() if 'html: ' in l]
    assert html and Path(html[0]).is_file() and Path(html[0]).is_relative_to(d['report'])
