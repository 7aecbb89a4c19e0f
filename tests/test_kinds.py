"""A task kind added from outside the library (a `TaskKind` and its hooks, no edit of posenc) trains, checks its run
folder, plans in a profile and gets its section in the report."""
import dataclasses
import pytest
from posenc import context, kinds, recipes, profiles, report, tasks
from posenc.kinds import KINDS, TaskKind, register_kind, on_kind
from posenc.results import load_runs


@pytest.fixture
def echo_kind():
    "A kind 'echo' whose one task 'echo8' is the copy task under another kind: its own name, defaults, rule and section."
    syn = KINDS['synthetic']
    kind = register_kind(dataclasses.replace(syn, name='echo', about='copy, as a kind of its own', hooks={},
                                             defaults={**syn.defaults, 'train_max_len': 4, 'n_train': 200}))
    on_kind('echo', 'prepare')(lambda task, p, seed: syn.hook('prepare')('copy', p, seed))
    on_kind('echo', 'available')(lambda task, download: True)
    on_kind('echo', 'section')(lambda ctx, task: f'## {task} {{#sec-res-{task}}}\n\nThe echo section of {task}.\n')
    on_kind('echo', 'figures')([])
    tasks.TASK_KINDS['echo8'] = 'echo'
    yield kind
    tasks.TASK_KINDS.pop('echo8', None); KINDS.pop('echo', None)


def test_a_kind_from_outside_runs_end_to_end(echo_kind, tmp_path):
    assert recipes.recipe_params('echo8')['train_max_len'] == 4                # its own defaults
    assert profiles.template_path('echo8').name == 'synthetic.ipynb'           # its template, found through the kind
    assert profiles.task_available('echo8')
    job, = profiles.plan(dict(name='t', pes=['rope'], seeds=[0], tasks={'echo8': dict(steps=5)}))
    assert job.template.endswith('synthetic.ipynb')
    rd = tmp_path/'runs'/'t'
    res = recipes.run_experiment('echo8', 'rope', 0, rd/'echo8__rope__s0', profile='t', steps=5, n_test_per_length=2,
                                 d_model=16, n_heads=2, threads=1)
    assert res.metrics['kind'] == 'echo' and 'acc_ood' in res.metrics
    recipes.check_run_dir(rd/'echo8__rope__s0')                                 # the kind's own metrics contract
    out = report.build_report(rd, tmp_path/'figures', tmp_path/'report', formats=())
    md = out['md'].read_text()
    assert 'The echo section of echo8.' in md                                   # its section, through its hook
    run, = load_runs(rd)
    c = context.check_runs([run])
    assert c['criterion'] == 'accuracy ≥ 0.99 on the training lengths'          # its training check


def test_a_kind_without_its_preparation_fails_clearly(tmp_path):
    register_kind(dataclasses.replace(KINDS['synthetic'], name='bare', hooks={}))
    tasks.TASK_KINDS['bare1'] = 'bare'
    try:
        with pytest.raises(LookupError, match=r"task kind 'bare' has no 'prepare' \(attached: nothing\).*on_kind\('bare', 'prepare'\)"):
            recipes.run_experiment('bare1', 'rope', 0, tmp_path/'r', steps=2, threads=1)
    finally:
        tasks.TASK_KINDS.pop('bare1', None); KINDS.pop('bare', None)
