"Integration tests of posenc.data / posenc.tokenize on the real corpora in ../shared/data (skipped when absent)."
import functools, os, re
from pathlib import Path
import pytest
from posenc.data import (ARCHIVES, SETS, DataError, file_digest, get_corpus, load_set, read_lines, read_segs,
                         set_files, strip_diacritics, tinyshakespeare)
from posenc.tokenize import bpe_tokenizer

def _shared() -> Path:
    env = os.environ.get('POSENC_DATA')
    for p in ([Path(env)] if env else []) + [Path(__file__).resolve().parents[2]/'shared'/'data']:
        if (p/'README.md').is_file() and (p/'iwslt_fr-en').is_dir(): return p
    return None

SHARED = _shared()
pytestmark = pytest.mark.skipif(SHARED is None, reason="real corpora not found: set POSENC_DATA or provide ../shared/data "
                                                        "(see posenc.data.data_roots)")

# pair counts from ../shared/data/README.md
COUNTS = {'iwslt16/dev2010': 887, 'iwslt16/tst2010': 1664, 'iwslt16/tst2011': 818, 'iwslt16/tst2012': 1124,
          'iwslt16/tst2013': 1026, 'iwslt16/tst2014': 1305, 'iwslt17/tst2016': 1159, 'iwslt17/tst2017': 1455,
          'newstest2014': 3003}

@pytest.mark.parametrize('name', sorted(COUNTS))
def test_set_counts(name):
    pairs, dropped = load_set(name, SHARED, download=False)
    assert (len(pairs), dropped) == (COUNTS[name], 0)
    for path in set_files(name, SHARED, download=False): assert len(read_segs(path)) == COUNTS[name]

def test_every_sgm_file():
    "All four newstest2014 files (both directions' src and ref) have 3,003 segments."
    files = sorted((SHARED/'wmt14_fr-en'/'newstest2014').glob('*.sgm'))
    assert len(files) == 4
    for f in files: assert len(read_segs(f)) == 3003, f

def test_europarl_sample():
    "3,000 raw lines on each side; 6 pairs empty on one side are dropped (and counted)."
    src, tgt = set_files('europarl-3k', SHARED, download=False)
    lf, le = read_lines(src), read_lines(tgt)
    assert len(lf) == len(le) == 3000
    assert sum(bool(a) != bool(b) for a, b in zip(lf, le)) == 6
    pairs, dropped = load_set('europarl-3k', SHARED, download=False)
    assert (len(pairs), dropped) == (2994, 6)

def test_text_is_clean():
    "No markup, entities, double or edge spaces survive; the 2017 English double spaces are collapsed."
    raw = (SHARED/'iwslt_fr-en/iwslt17_2017-01-ted-test/en-fr/IWSLT17.TED.tst2016.en-fr.en.xml').read_text(encoding='utf-8')
    assert re.search(r'<seg[^>]*>[^<]*\S  \S', raw)  # the raw file does have them
    for name in COUNTS:
        for pair in load_set(name, SHARED, download=False)[0]:
            for s in pair:
                assert s and s == s.strip() and '  ' not in s and '<seg' not in s
                assert not re.search(r'&(amp|lt|gt|quot|apos|#\d+);', s), s

def test_corpora():
    ted = get_corpus('ted-small', SHARED, download=False)
    assert ted.sizes() == {'train': 887 + 1664 + 818 + 1124 + 1026, 'valid': 1305, 'test': 1159 + 1455}
    assert ted.dropped == {'train': 0, 'valid': 0, 'test': 0} and set(ted.tests) == {'iwslt17/tst2016', 'iwslt17/tst2017'}
    assert 'ted-small' in ted.description or 'small' in ted.description
    wmt = get_corpus('wmt14-small', SHARED, download=False)
    assert wmt.sizes() == {'train': 2500 - 6, 'valid': 500, 'test': 3003} and wmt.dropped['train'] == 6
    assert not set(wmt.train) & set(wmt.valid)

def test_full_configs_fail_clearly_without_their_files():
    with pytest.raises(DataError, match='train.tags.fr-en.fr'): get_corpus('iwslt2017', SHARED, download=False)

def test_tinyshakespeare():
    ts = tinyshakespeare(SHARED, download=False)
    text = (SHARED/'tinyshakespeare'/'input.txt').read_text(encoding='utf-8')
    assert len(ts.train) + len(ts.valid) == len(text) == 1_115_394
    assert ts.train + ts.valid == text and len(ts.train) == int(0.9 * len(text))
    assert len(set(text)) == 65

def test_pinned_checksums_match_shared_copies():
    "The sha256 pinned for downloads equal those of the unmodified copies in ../shared/data."
    sums = dict(reversed(l.split(None, 1)) for l in (SHARED/'SHA256SUMS').read_text().splitlines() if l.strip())
    for key, rel in [('iwslt17-test-fr-en', 'iwslt_fr-en/iwslt17_2017-01-ted-test/fr-en.tgz'),
                     ('iwslt17-test-en-fr', 'iwslt_fr-en/iwslt17_2017-01-ted-test/en-fr.tgz'),
                     ('tinyshakespeare', 'tinyshakespeare/input.txt')]:
        assert ARCHIVES[key].checksum == 'sha256:' + sums[rel] == 'sha256:' + file_digest(SHARED/rel)

def test_ted_small_bpe_round_trip(tmp_path):
    ted = get_corpus('ted-small', SHARED, download=False)
    tok = bpe_tokenizer(ted.train, 8000, name='ted-small', cache=tmp_path)
    again = bpe_tokenizer(ted.train, 8000, name='ted-small', cache=tmp_path)
    assert not tok.cache_hit and again.cache_hit and again.path == tok.path
    refs, srcs = [t for _, t in ted.test], [s for s, _ in ted.test]
    assert again.decode_batch(again.encode_batch(refs)) == refs
    assert again.decode_batch(again.encode_batch(srcs)) == srcs
    assert all(3 not in ids for ids in again.encode_batch(refs))  # byte-level: never <unk>

# the small fr–en stand-ins of ../shared/data/extra_fr-en (README: "Extra fr–en training corpora")
EXTRA = {'tatoeba': 167_130, 'multi30k/train': 29_000, 'multi30k/val': 1_014, 'multi30k/test2016': 1_000,
         'multi30k/test2017': 1_000, 'multi30k/mscoco2017': 461, 'newstest2012': 3_003}

def _has_extra(): return (SHARED/'extra_fr-en').is_dir()

@functools.lru_cache(maxsize=None)
def _corpus(name): return get_corpus(name, SHARED, download=False)
needs_extra = pytest.mark.skipif(SHARED is None or not _has_extra(), reason="../shared/data/extra_fr-en not found")

@needs_extra
@pytest.mark.parametrize('name', sorted(EXTRA))
def test_extra_set_counts(name):
    pairs, dropped = load_set(name, SHARED, download=False)
    assert (len(pairs), dropped) == (EXTRA[name], 0)

@needs_extra
def test_tatoeba_has_two_columns_and_a_disjoint_heldout_slice():
    from posenc.data import TATOEBA_HELDOUT, read_tsv
    rows = read_tsv(SHARED/'extra_fr-en/tatoeba_2019/fra.txt')
    assert {len(r) for r in rows} == {2} and rows[0] == ['Go.', 'Va !']   # English, French; no attribution column
    held, rest = load_set('tatoeba/heldout', SHARED, download=False)[0], load_set('tatoeba/train', SHARED, download=False)[0]
    assert len(held) == TATOEBA_HELDOUT == len({s for s, _ in held})
    assert not {s for s, _ in held} & {s for s, _ in rest} and not {t for _, t in held} & {t for _, t in rest}
    assert len(held) + len(rest) < EXTRA['tatoeba']

@needs_extra
def test_hansard_is_ascii_and_deduplicated():
    pairs, dropped = load_set('hansard36/train', SHARED, download=False)
    assert len(pairs) == len(set(pairs)) and 225_000 < len(pairs) < 232_000   # README: about 229k distinct
    assert all(s.isascii() for s, _ in pairs[:50_000])
    assert any('coeur' in s for s, _ in pairs) and not any('cœur' in s for s, _ in pairs)

@needs_extra
def test_moses_sets_are_detokenized():
    for name in ('europarl-20k', 'newstest2012'):
        pairs = load_set(name, SHARED, download=False)[0]
        text = [s for p in pairs for s in p]
        assert not any(re.search(r'&(apos|quot|amp|lt|gt|#\d+);', s) for s in text), name
        assert not any(re.search(r'\w ,|\( | \)|\w \.$', s) for s in text), name
        assert sum("l'" in s for s, _ in pairs) > len(pairs) // 10 and not any(re.search(r"\b[ld] '\w", s) for s, _ in pairs)
    assert len(load_set('europarl-20k', SHARED, download=False)[0]) == 20_000 - 35   # 35 lines empty on one side

@needs_extra
def test_small_fr_en_configurations():
    sizes = {'ted-tatoeba': (1_305, 1_159 + 1_455), 'wmt-europarl': (3_003, 3_003), 'wmt-europarl-hansard': (3_003, 3_003),
             'europarl': (500, 1_500), 'multi30k': (1_014, 1_000)}
    for name, (n_valid, n_test) in sizes.items():
        c = _corpus(name)
        assert (len(c.valid), len(c.test)) == (n_valid, n_test), name
        held = {s for s, _ in c.valid} | {s for ps in c.tests.values() for s, _ in ps}
        assert not any(s in held for s, _ in c.train), name             # no valid/test source in training
        assert len(c.train) == len(set(c.train)), name
        assert 'NOT the official' in c.description or 'Not a WMT or IWSLT' in c.description, name
        assert f"train {len(c.train):,} (" in c.description, name      # the description states the counts
    ted = _corpus('ted-tatoeba')
    assert set(ted.tests) == {'iwslt17/tst2016', 'iwslt17/tst2017', 'tatoeba/heldout'} and 160_000 < len(ted.train) < 170_000
    wmh = _corpus('wmt-europarl-hansard')
    assert 'diacritics are stripped from every French input' in wmh.description
    assert not any(c in s for s, _ in wmh.train + wmh.valid + wmh.test for c in 'éèàçêœ')
    assert [t for _, t in wmh.test] == [t for _, t in _corpus('wmt-europarl').test]   # English references untouched
    assert [s for s, _ in _corpus('wmt-europarl').test if s != strip_diacritics(s)]       # ... while the French had accents

@needs_extra
def test_europarl_heldout_shares_no_sentence_with_training():
    from posenc.data import train_overlap
    ep = _corpus('europarl')
    assert train_overlap(ep) == {'valid': 0, 'europarl-20k/heldout': 0, 'newstest2014': 0}   # either side, whitespace-normalised
    assert len(ep.tests['newstest2014']) == 3_003 and 20_000 < len(ep.train) < 21_500
    assert sum(train_overlap(_corpus('wmt-europarl')).values()) == 1   # the older configuration, without `disjoint`: one left

def test_translation_scores_every_test_set(tmp_path):
    "A translation run scores each official test set (slices of its test) and each extra one (decoded on its own)."
    from posenc.recipes import run_experiment
    corpus = get_corpus('multi30k', SHARED, download=False)
    r = run_experiment('multi30k', 'rope', 0, out_dir=tmp_path/'run', steps=2, d_model=16, n_heads=2, n_layers=1,
                       vocab_size=300, valid_size=4, test_size=6, beam_size=2, decode_batch=8, threads=1, progress=False)
    by = r.metrics['by_test_set']
    assert set(by) == set(corpus.tests), (set(by), set(corpus.tests))
    official = [v for k, v in by.items() if k in corpus.parts['test']]
    assert not any(v['extra'] for v in official) and sum(v['sentences'] for v in official) == r.metrics['test_sentences'] == 6
    assert all(v['extra'] and v['sentences'] == 6 and 0 <= v['bleu'] <= 100 for k, v in by.items() if k not in corpus.parts['test'])
    # the floor of each set: the French source copied as the English output
    assert all(0 <= v['copy_source']['bleu'] < 100 for v in by.values()) and 0 <= r.metrics['baseline']['copy_source']['bleu'] < 100
