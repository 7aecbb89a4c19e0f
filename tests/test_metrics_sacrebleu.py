"posenc's translation scores equal those of the `sacrebleu` command line on the same files."
import json, random, subprocess, sys
from pathlib import Path
import pytest
from posenc.evaluate import mt_scores, paired_bootstrap, bleu_by_src_len

SACREBLEU = Path(sys.executable).parent/'sacrebleu'

def _references(n=150):
    "English references of the TED test set when the corpora are present, otherwise a built-in list."
    try:
        from posenc.data import get_corpus
        return [t for _, t in get_corpus('ted-small', download=False).test[:n]]
    except Exception:
        base = ["We're at a tipping point in human history.", "It is raining in Paris today, isn't it?",
                "The results (see Table 2) were 12.5% better than last year's.", "\"Hello,\" she said — and left.",
                "I didn't know that; nobody told me.", "Numbers like 3,000 and 1.5 million are tokenised too."]
        return [f"{s} {i}" for i in range(n // len(base) + 1) for s in base][:n]

def _perturb(refs, p, seed):
    "Hypotheses made from the references by dropping, swapping and replacing words."
    rng = random.Random(seed)
    out = []
    for r in refs:
        w = r.split()
        w = [x for x in w if rng.random() > p / 2] or ['.']
        if len(w) > 2 and rng.random() < p: i = rng.randrange(len(w) - 1); w[i], w[i + 1] = w[i + 1], w[i]
        w = [x if rng.random() > p / 3 else x.lower() + 's' for x in w]
        out.append(' '.join(w))
    return out

def _write(path, lines): path.write_text(''.join(l + '\n' for l in lines), encoding='utf-8')

def _cli(*args, env=None):
    assert SACREBLEU.exists(), f"no sacrebleu command next to {sys.executable}"
    r = subprocess.run([str(SACREBLEU), *map(str, args)], capture_output=True, text=True, env=env, check=True)
    return json.loads(r.stdout)

@pytest.fixture(scope='module')
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp('mt')
    refs = _references()
    hyp_a, hyp_b = _perturb(refs, 0.5, 1), _perturb(refs, 0.2, 2)
    for name, lines in (('ref.txt', refs), ('a.txt', hyp_a), ('b.txt', hyp_b)): _write(d/name, lines)
    return d, refs, hyp_a, hyp_b

def test_bleu_chrf_equal_cli(files):
    d, refs, hyp_a, hyp_b = files
    for name, hyps in (('a.txt', hyp_a), ('b.txt', hyp_b)):
        ours = mt_scores(hyps, refs)
        cli = {m['name']: m for m in _cli(d/'ref.txt', '-i', d/name, '-m', 'bleu', 'chrf', '-w', 6)}
        assert round(ours['bleu'], 6) == pytest.approx(cli['BLEU']['score'], abs=1e-6)
        assert round(ours['chrf'], 6) == pytest.approx(cli['chrF2']['score'], abs=1e-6)
        assert ours['signature']['bleu'] == cli['BLEU']['signature']
        assert ours['signature']['chrf'] == cli['chrF2']['signature']

def test_files_of_a_run_round_trip(files, tmp_path):
    "Hypotheses written one per line and read back by the command line score the same (no lost or merged lines)."
    d, refs, hyp_a, _ = files
    from posenc.recipes import _write_lines
    _write_lines(tmp_path/'hyp.txt', [h + '\n' for h in hyp_a[:-1]] + [hyp_a[-1]])   # stray newlines are flattened
    assert len((tmp_path/'hyp.txt').read_text().splitlines()) == len(refs)
    cli = _cli(d/'ref.txt', '-i', tmp_path/'hyp.txt', '-m', 'bleu', '-w', 6)
    assert mt_scores([h + ' ' for h in hyp_a[:-1]] + [hyp_a[-1]], refs)['bleu'] == pytest.approx(cli['score'], abs=1e-5)

def test_paired_bootstrap_equals_cli(files):
    d, refs, hyp_a, hyp_b = files
    ours = paired_bootstrap(refs, hyp_a, hyp_b, metrics=('bleu',), n_samples=200, seed=7)['bleu']
    import os
    cli = _cli(d/'ref.txt', '-i', d/'a.txt', d/'b.txt', '-m', 'bleu', '--paired-bs', '--paired-bs-n', 200,
               env={**os.environ, 'SACREBLEU_SEED': '7'})
    base, sys_b = cli[0]['BLEU'], cli[1]['BLEU']
    assert ours['score_a'] == pytest.approx(base['score']) and ours['score_b'] == pytest.approx(sys_b['score'])
    assert ours['p_value'] == pytest.approx(sys_b['p_value'])
    assert ours['mean_b'] == pytest.approx(sys_b['mean']) and ours['ci_b'] == pytest.approx(sys_b['ci'])

def test_bleu_by_length_buckets_partition(files):
    d, refs, hyp_a, _ = files
    srcs = [' '.join(['w'] * (1 + i % 37)) for i in range(len(refs))]
    by = bleu_by_src_len(srcs, hyp_a, refs)
    assert list(by) == ['1-10', '11-20', '21-30', '31-40']
    # a bucket's BLEU is the corpus BLEU of exactly its sentences
    sel = [i for i, s in enumerate(srcs) if len(s.split()) <= 10]
    assert by['1-10'] == pytest.approx(mt_scores([hyp_a[i] for i in sel], [refs[i] for i in sel])['bleu'])
