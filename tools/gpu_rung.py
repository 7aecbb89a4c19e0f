"""Train a ladder rung's runs, or a profile's, on one GPU, many side by side, without Jupyter: for a GPU machine whose
Python has torch but not papermill or a Jupyter kernel.

    PYTHONPATH=. python tools/gpu_rung.py transfer mt-budget4x --workers 8 --deadline 400 --out runs/transfer
    PYTHONPATH=. python tools/gpu_rung.py --profile full --tasks europarl --workers 8 --deadline 400
    PYTHONPATH=. python tools/gpu_rung.py --profile full --tasks europarl ted-tatoeba --dry_run   # the plan only

Each run is the job `posenc sweep --profile transfer --rungs mt-budget4x` (or `posenc sweep --profile full --tasks
europarl`) plans (same name, recipe, seed and profile tag), trained in its own process by `posenc train
--distributed`'s in-process path (`run_experiment`, one process, one thread) into `<folder>/.partial/<run>`, and moved
to `<folder>/<run>` when its metrics.json is written, as the sweep publishes a run. The folder is the sweep's:
`<out>/<rung>` for a rung, and for a profile `<out>/recipe-N` where a task's recipe is at version N > 1
(`runs/full/recipe-2/…`), else `<out>`. Runs start in the sweep's order (seed by seed), `--workers` at a time; at `--deadline`
seconds no run starts and every run still training is stopped (one already evaluating gets `--grace` seconds more), left
in `.partial/` (it resumes from its checkpoint, if any, under `posenc sweep`). Finished runs are never touched again. Prints one line per run and a summary table last.
"""
import argparse, json, os, shutil, subprocess, sys, time
from pathlib import Path

def _no_papermill():
    "Without papermill the templates' parameters cannot be listed: skip that check (`posenc sweep --dry_run` makes it)."
    try: import papermill  # noqa: F401
    except ImportError:
        import posenc.profiles as pp
        pp.check_params = lambda *a, **k: None

def plan(ladder:str, rung:str, pes=None, seeds=None, sets=None):
    _no_papermill()
    from posenc import sweep as sw
    from posenc.ladder import load_ladder, check_ladder
    r = check_ladder(load_ladder(ladder), [rung])[rung]
    prof = r.profile()
    if sets: prof['tasks'] = {t: {**p, **sets} for t, p in prof['tasks'].items()}
    jobs = sw.plan(prof)
    return [j for j in jobs if (not pes or j.pe in pes) and (seeds is None or j.seed in seeds)]

def plan_profile(profile:str, tasks=None, pes=None, seeds=None, sets=None):
    "The jobs `posenc sweep --profile PROFILE --tasks …` plans (each knows its recipe version's subfolder, `Job.subdir`)."
    _no_papermill()
    from posenc import sweep as sw
    from posenc.profiles import get_profile
    prof = get_profile(profile)
    if sets: prof['tasks'] = {t: {**p, **sets} for t, p in prof['tasks'].items()}
    return sw.plan(prof, pes, tasks, seeds), prof['name']

def trained_steps(stage:Path) -> int:
    "The last training step that a run folder's log.jsonl records (0 without one)."
    try: return json.loads((stage/'log.jsonl').read_text().strip().splitlines()[-1]).get('step', 0)
    except (OSError, ValueError, IndexError): return 0

def child(job_json:str, stage:str):
    "In a worker process: one run, as `posenc train --distributed` trains it."
    _no_papermill()
    from posenc import sweep as sw
    from posenc.cli import _train_distributed
    from posenc.recipes import recipe_params
    job = sw.Job(**json.loads(job_json))
    params = {k: v for k, v in job.params.items() if k in recipe_params(job.task)} | {'threads': 1}
    return _train_distributed(job, Path(stage), params, restart=False, backend=None, download=False, dry_run=False)

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('ladder', nargs='?'); ap.add_argument('rung', nargs='?')
    ap.add_argument('--profile', help='instead of a ladder and rung: a profile (e.g. full), its --tasks')
    ap.add_argument('--tasks', nargs='*', help='with --profile: the tasks (default: all of them)')
    ap.add_argument('--out', default=None, help="the ladder's or profile's runs folder (default runs/<ladder>, runs/<profile>)")
    ap.add_argument('--dry_run', action='store_true', help='print the runs and their folders, train nothing')
    ap.add_argument('--workers', type=int, default=8)
    ap.add_argument('--deadline', type=float, default=None, help='seconds after which unfinished runs are stopped')
    ap.add_argument('--grace', type=float, default=60, help='seconds more for runs already evaluating at the deadline')
    ap.add_argument('--pes', nargs='*'); ap.add_argument('--seeds', nargs='*', type=int)
    ap.add_argument('--set', action='append', default=[], help='KEY=VALUE (a TOML literal) changed in every run: for tests')
    a = ap.parse_args(argv)
    from posenc.cli import parse_set
    from posenc.runs import has_result
    from dataclasses import asdict
    sets = dict(parse_set(s) for s in a.set)
    if bool(a.profile) == bool(a.ladder and a.rung) or (a.profile and (a.ladder or a.rung)) or (a.tasks and not a.profile):
        ap.error('give a ladder and its rung (transfer mt-budget4x), or --profile with its --tasks, not both')
    if a.profile:
        jobs, name = plan_profile(a.profile, a.tasks, a.pes, a.seeds, sets)
        base = Path(a.out or f'runs/{name}'); folder = lambda j: base/j.subdir
    else:
        jobs, name = plan(a.ladder, a.rung, a.pes, a.seeds, sets), f'{a.ladder}/{a.rung}'
        base = Path(a.out or f'runs/{a.ladder}')/a.rung; folder = lambda j: base
    todo = [j for j in jobs if not has_result(folder(j)/j.name, warn=False)]
    print(f"{name}: {len(jobs)} runs, {len(jobs) - len(todo)} finished already, {len(todo)} to train, "
          f"{a.workers} at a time" + (f", stopped at {a.deadline:.0f} s" if a.deadline else ''), flush=True)
    if a.dry_run:
        for j in todo: print(f"  {folder(j)/j.name}  recipe {j.recipe}  {j.params}")
        return 0
    t0, live, done, rows = time.time(), {}, [], []
    env = {**os.environ, 'OMP_NUM_THREADS': '1', 'PYTHONUNBUFFERED': '1'}
    while todo or live:
        while todo and len(live) < a.workers:
            j = todo.pop(0); root = folder(j); stage = root/'.partial'/j.name
            logs = root/'.partial'/'logs'; logs.mkdir(parents=True, exist_ok=True)
            cmd = [sys.executable, __file__, '--child', json.dumps(asdict(j)), str(stage)]
            live[j.name] = (j, subprocess.Popen(cmd, env=env, stdout=open(logs/f'{j.name}.log', 'w'), stderr=subprocess.STDOUT),
                            time.time())
        time.sleep(2)
        for name, (j, p, ts) in list(live.items()):
            if p.poll() is None: continue
            del live[name]; root = folder(j); stage = root/'.partial'/name
            ok = p.returncode == 0 and has_result(stage, warn=False)
            if ok:
                final = root/name
                if final.exists(): shutil.rmtree(final)
                shutil.rmtree(stage/'checkpoints', ignore_errors=True)
                from posenc.runs import _note_recipe
                _note_recipe(stage/'config.json', j.recipe)   # as the sweep records it
                os.rename(stage, final)
            m = json.loads((root/name/'metrics.json').read_text()) if ok else {}
            rows.append((name, 'finished' if ok else f'failed ({p.returncode})', time.time() - ts, m.get('val_loss')))
            print(f"[{time.time() - t0:6.0f} s] {name}: {rows[-1][1]} in {rows[-1][2]:.0f} s"
                  + (f", val_loss {m['val_loss']:.4f}" if ok else f" (log: {root}/.partial/logs/{name}.log)"), flush=True)
        if a.deadline and time.time() - t0 > a.deadline:
            rows += [(j.name, 'not started', 0, None) for j in todo]; todo = []
            # a run whose training has finished is only evaluating: it gets until --grace more seconds
            late = time.time() - t0 > a.deadline + a.grace
            for name, (j, p, ts) in list(live.items()):
                step, total = trained_steps(folder(j)/'.partial'/name), j.params.get('steps')
                if not late and total and step >= total: continue
                p.terminate(); p.wait(30); del live[name]
                rows.append((name, f'stopped at step {step:,}', time.time() - ts, None))
                print(f"[{time.time() - t0:6.0f} s] {name}: stopped at the deadline, step {step:,} of {total or '?'}", flush=True)
    print(f"\n{'run':<32} {'state':<24} {'wall s':>7} {'val_loss':>9}")
    for name, state, w, v in rows: print(f"{name:<32} {state:<24} {w:7.0f} {'' if v is None else f'{v:9.4f}'}")
    print(f"total {time.time() - t0:.0f} s")
    return 0 if all(s == 'finished' for _, s, _, _ in rows) else 1

if __name__ == '__main__':
    if len(sys.argv) > 1 and sys.argv[1] == '--child': sys.exit(child(sys.argv[2], sys.argv[3]))
    sys.exit(main())
