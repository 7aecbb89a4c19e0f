"""The gpu profile, end to end on the CPU: `posenc run --profile gpu --download` on a copy of profiles/gpu.toml in which
only the sizes are shrunk (steps, widths, depths, batches, vocabulary, lengths, example counts), against a mirror of
the archives served by a local HTTP server on 127.0.0.1.

The archives are small but real in their formats and member paths: the WIT3 `2017-01-trnted` `fr-en.tgz` (the
`train.tags.fr-en.{fr,en}` files with their talk metadata, and the `IWSLT17.TED.{dev2010,tst2010…tst2015}` `.xml` files),
the WMT test archives with their `.sgm` files (`test-full/newstest2014-fren-*`, `test/newstest2013-src.*`), Europarl v7,
News Commentary v9 and Common Crawl as plain aligned files in their `.tgz`, and Tiny Shakespeare's `input.txt`. A
TOML file named by `POSENC_ARCHIVES` points each archive at the server and pins the sha256 of its fixture, and
`POSENC_DATA_ONLY` keeps the run from finding a copy anywhere but in the empty `POSENC_DATA` folder, so every corpus
goes through the download path: fetch, checksum, unpack, find, read; then tokenizer, training, decoding, figures and
report. The sentences are Europarl v7 pairs (Koehn 2005), the text of Tiny Shakespeare a passage of Coriolanus
(public domain) repeated."""
import hashlib, json, os, re, resource, subprocess, sys, time
from pathlib import Path
import pytest
from _http import Server, local_env, targz

try: import tomllib
except ModuleNotFoundError: import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
_SCRIPT = Path(sys.executable).parent/'posenc'
CMD = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, '-c', 'import sys; from posenc.cli import main; sys.exit(main())']

# Every size of the gpu profile and its shrunk value: what a CPU trains in seconds. Nothing else of the profile changes.
SHRUNK = dict(steps=4, warmup=2, eval_every=2, ckpt_every=2,                        # training steps and intervals
              d_model=None, n_layers=1, n_dec_layers=1, d_ff=64,                    # model (d_model: 8 per head, below)
              vocab_size=320, batch_tokens=1024,                                     # translation data
              decode_batch=16,                                                       # decoding
              block_size=16, batch_size=8, eval_tokens=256,                          # character LM and MLM
              train_max_len=4, n_train=200, n_test_per_length=2)                     # synthetic tasks
# One encoding and one seed. A run costs about 7 s of CPU whatever its size (a kernel started, torch and posenc imported,
# torch._dynamo imported by the optimizer's constructor), so each encoding adds about 30 s on two idle cores: with
# 'none,rope' the test took 134 s of CPU against 74 s with 'rope'. RoPE, whose hooks transform q and k, takes every path
# that 'none' takes; reports and figures over several encodings are tested on fake runs (test_report, test_figures).
PES, SEEDS = 'rope', '0'

# fmt: off
PAIRS = [  # (fr, en), Europarl v7
    ("Vous avez souhaité un débat à ce sujet dans les prochains jours, au cours de cette période de session.", "You have requested a debate on this subject in the course of the next few days, during this part-session."),
    ("Si l'Assemblée en est d'accord, je ferai comme M. Evans l'a suggéré.", "If the House agrees, I shall do as Mr Evans has suggested."),
    ("Je voudrais vous demander un conseil au sujet de l'article 143, qui concerne l'irrecevabilité.", "I would like your advice about Rule 143 concerning inadmissibility."),
    ("Et tout ceci dans le respect des principes que nous avons toujours soutenus.", "This is all in accordance with the principles that we have always upheld."),
    ("Toutefois, Madame la Présidente, ce que j'avais demandé n'a pas été réalisé.", "But, Madam President, my personal request has not been met."),
    ("Comment se fait-il que les escaliers n'aient pas été améliorés depuis mon accident ?", "Why have the staircases not been improved since my accident?"),
    ("Cher collègue nous allons vérifier tout cela.", "Mr Berenguer Fuster, we shall check all this."),
    ("D'aucuns l'ont dit, la situation en Indonésie est extrêmement explosive.", "As people have said, the situation there is extremely volatile."),
    ("Nous ne savons pas ce qui se passe.", "We do not know what is happening."),
    ("(Applaudissements du groupe PSE)", "(Applause from the PSE Group)"),
    ("C'est pourquoi mon groupe demande que ce point soit retiré de l'ordre du jour.", "That is why my Group moves that this item be taken off the agenda."),
    ("Ce n' est pas demander beaucoup.", "It is not a lot to ask."),
    ("Les modifications n'ont pas lieu d'être.", "There is no room for amendments."),
    ("Moi non plus, vous ne m'avez pas donné la parole.", "You did not call me either."),
    ("Il me semble que c'est une bonne formule.", "This seems to me to be a workable solution."),
    ("(Le Parlement adopte l'ordre des travaux ainsi modifié)", "(The order of business was adopted thus amended)"),
    ("Dans certaines communes de mon pays, c'était vraiment l'enfer.", "In fact, all hell broke loose in some municipalities in my province."),
    ("Madame la Présidente, je voudrais faire quelques remarques.", "Madam President, I would like to make a few comments."),
    ("Bref, le sujet est très important.", "In short, the issue is an important one."),
    ("Je me permets de soulever un dernier point.", "I would like to mention one final point."),
    ("Le vote aura lieu demain à 12 heures.", "The vote will take place tomorrow at 12 p.m."),
    ("J'ai trouvé cela tout à fait exceptionnel.", "I thought that it was quite superb."),
    ("La plupart des propositions d' amendement sont de nature purement technique.", "Most of the proposed amendments are of a purely technical nature."),
    ("Nous acceptons donc les quatre amendements qui nous ont été proposés.", "We therefore accept the four amendments which have been proposed."),
    ("Nous avons vu le fossé entre les riches et les pauvres se creuser.", "We have seen the gap between rich and poor widen."),
    ("Au sein de ce Parlement, la transparence fait trop souvent défaut.", "Too much of what takes place within this Parliament is not transparent."),
    ("L'agriculture fournit seulement 5,5 % de l'emploi de l'Union.", "Agriculture only provides 5.5% of employment in the Union."),
    ("Ce rapport est tout à fait bon et notre groupe le soutient.", "This report is very good and our Group supports it."),
    ("C'est ce que nous demandons aujourd'hui au commissaire.", "This is what we are today asking the Commissioner for."),
    ("Nous ne voulons pas seulement bâtir une Europe de villes.", "We do not want to build a Europe of cities alone."),
    ("Je crois qu'il faut que nous soyons capables de le dire haut et fort.", "I think we should be capable of saying this loud and clear."),
    ("J'invite le Parlement à soutenir ces modifications.", "I urge the House to support these changes."),
    ("Elles croissent, mais au niveau du PIB.", "They are growing, but only in terms of GDP."),
    ("Voilà pour l' objectif de ces orientations.", "This is the purpose of these guidelines."),
    ("Le rapport montre que, malgré tous les efforts, la croissance est inégale.", "The report shows that growth has been uneven, despite all our efforts."),
    ("De région en région, les situations sont très, très différentes.", "The situation varies to an enormous degree throughout the regions."),
    ("Quelle en est la conséquence ?", "What is the result?"),
    ("Nous devons leur en donner la possibilité.", "We must give them this opportunity."),
    ("Ce taux est de 37 % à la Réunion par exemple.", "In Reunion, for example, the rate is 37%."),
    ("Je voudrais évoquer quelques points spécifiques.", "I should like to mention a few specific points."),
    ("Merci beaucoup, Monsieur le Commissaire.", "Thank you very much, Commissioner."),
    ("(La séance est levée à 20h25)", "(The sitting was closed at 8.25 p.m.)"),
    ("Le procès-verbal de la séance d'hier a été distribué.", "The Minutes of yesterday' s sitting have been distributed."),
    ("Je veux parler du point 11 de l'ordre des travaux.", "I refer to item 11 on the order of business."),
]
SHAKESPEARE = """First Citizen:
Before we proceed any further, hear me speak.

All:
Speak, speak.

First Citizen:
You are all resolved rather to die than to famish?

All:
Resolved. resolved.

First Citizen:
First, you know Caius Marcius is chief enemy to the people.

All:
We know't, we know't.

First Citizen:
Let us kill him, and we'll have corn at our own price.
Is't a verdict?

All:
No more talking on't; let it be done: away, away!

Second Citizen:
One word, good citizens.

First Citizen:
We are accounted poor citizens, the patricians good.
What authority surfeits on would relieve us: if they
would yield us but the superfluity, while it were
wholesome, we might guess they relieved us humanely;
but they think we are too dear: the leanness that
afflicts us, the object of our misery, is as an
inventory to particularise their abundance; our
sufferance is a gain to them Let us revenge this with
our pikes, ere we become rakes: for the gods know I
speak this in hunger for bread, not in thirst for revenge.

"""
# fmt: on

# --- the archives, in their real layouts -----------------------------------------------------------------------------

def _talk(talkid, pairs, lang, translated):
    "One talk of a WIT3 `train.tags` file: its metadata lines, then one segment per line (the translators only on the translated side)."
    meta = [f'<url>http://www.ted.com/talks/talk_{talkid}</url>', f'<keywords>talks, Europe, politics</keywords>',
            f'<speaker>Speaker {talkid}</speaker>', f'<talkid>{talkid}</talkid>', f'<title>Speaker {talkid}: Talk {talkid}</title>',
            f'<description>TED Talk Subtitles and Transcript: talk {talkid}.</description>']
    if translated: meta += [f'<reviewer href="http://www.ted.com/profiles/{talkid}1">R {talkid}</reviewer>',
                            f'<translator href="http://www.ted.com/profiles/{talkid}2">T {talkid}</translator>']
    return meta + [p[lang] for p in pairs]

def _xml(setid, lang, docs):
    "An IWSLT `.xml` file (WIT3 layout): `<doc>`s of metadata and `<seg id=…>` lines; `&` escaped as in XML."
    fr = lang == 0
    head = (f'<srcset setid="{setid}" srclang="french">' if fr else
            f'<refset setid="{setid}" srclang="french" trglang="english" refid="ref">')
    out = ['<?xml version="1.0" encoding="UTF-8"?>', '<mteval>', head]
    for docid, pairs in docs:
        out += [f'<doc docid="{docid}" genre="lectures">', f' <url>http://www.ted.com/talks/talk_{docid}</url>',
                f' <description>TED Talk Subtitles and Transcript: talk {docid}.</description>',
                f' <keywords>talks, Europe</keywords>', f' <talkid>{docid}</talkid>', f' <title>Talk {docid}</title>']
        out += [f'<seg id="{i}"> {p[lang].replace("&", "&amp;")} </seg>' for i, p in enumerate(pairs, 1)]
        out.append('</doc>')
    return '\n'.join(out + [head.replace('<', '</').split()[0] + '>', '</mteval>']) + '\n'

def _sgm(setid, lang, docs, ref=False):
    "A WMT `.sgm` file: SGML, not XML (a bare `&` stays as it is)."
    head = f'<refset trglang="en" setid="{setid}" srclang="any">' if ref else f'<srcset setid="{setid}" srclang="any">'
    out, sysid = [head], ' sysid="ref"' if ref else ''
    for docid, origlang, pairs in docs:
        out.append(f'<doc{sysid} docid="{docid}" genre="news" origlang="{origlang}">')
        out += [f'<seg id="{i}">{p[lang]}</seg>' for i, p in enumerate(pairs, 1)]
        out.append('</doc>')
    return '\n'.join(out + ['</refset>' if ref else '</srcset>']) + '\n'

def _plain(pairs, lang): return ''.join(p[lang] + '\n' for p in pairs)

IWSLT_TRAIN, IWSLT_SETS = PAIRS[:24], {s: PAIRS[24 + 2 * i: 26 + 2 * i] for i, s in enumerate(['dev2010'] + [f'tst{y}' for y in range(2010, 2016)])}
EUROPARL, COMMONCRAWL, NEWS_COMMENTARY = PAIRS[:12], PAIRS[12:20], PAIRS[20:28]
NEWSTEST = {2013: PAIRS[28:32], 2014: PAIRS[32:38]}

def archives() -> dict:
    "Each archive key -> (the path of its real URL, the bytes served there); the training sets as many pairs as `EXPECTED` says."
    d = 'fr-en'
    trnted = {f'{d}/train.tags.{d}.{l}': '\n'.join(_talk(1, IWSLT_TRAIN[:10], i, l == 'fr') + _talk(2, IWSLT_TRAIN[10:], i, l == 'fr')) + '\n'
              for i, l in enumerate(['fr', 'en'])}
    trnted[f'{d}/README'] = 'WIT3 2017-01-trnted fr-en (fixture)\n'
    for s, ps in IWSLT_SETS.items():
        for i, l in enumerate(['fr', 'en']):
            trnted[f'{d}/IWSLT17.TED.{s}.{d}.{l}.xml'] = _xml(f'iwslt2017-{s}', i, [(500 + len(s), ps[:1]), (600 + len(s), ps[1:])])
    ep = EUROPARL + [("Reprise de la session", "")]   # Europarl has lines empty on one side: the pair is dropped
    cc = [(f, e.replace(' ', '\u2028', 1) if i == 0 else e) for i, (f, e) in enumerate(COMMONCRAWL)]   # a U+2028 inside a line
    nc = [(f.replace(' et ', ' & ', 1), e) for f, e in NEWS_COMMENTARY]   # raw text: a bare & stays as it is
    wit3 = 'raw.githubusercontent.com/hlt-mt/WIT3/master/archive'
    return {
        'iwslt17-trnted-fr-en': (f'/{wit3}/2017-01-trnted/texts/fr/en/fr-en.tgz', targz(trnted)),
        'europarl-v7': ('/www.statmt.org/wmt13/training-parallel-europarl-v7.tgz',
                        targz({'training/europarl-v7.fr-en.fr': _plain(ep, 0), 'training/europarl-v7.fr-en.en': _plain(ep, 1),
                               'training/europarl-v7.de-en.de': 'Wiederaufnahme der Sitzungsperiode\n',
                               'training/europarl-v7.de-en.en': 'Resumption of the session\n'})),
        'commoncrawl': ('/www.statmt.org/wmt13/training-parallel-commoncrawl.tgz',
                        targz({'commoncrawl.fr-en.fr': _plain(cc, 0), 'commoncrawl.fr-en.en': _plain(cc, 1),
                               'commoncrawl.fr-en.annotation': ''.join(f'http://example.org/{i}\n' for i in range(len(cc)))})),
        'news-commentary-v9': ('/www.statmt.org/wmt14/training-parallel-nc-v9.tgz',
                               targz({'training/news-commentary-v9.fr-en.fr': _plain(nc, 0),
                                      'training/news-commentary-v9.fr-en.en': _plain(nc, 1)})),
        'wmt13-test': ('/statmt.org/wmt13/test.tgz', targz({
            f'test/newstest2013-src.{l}.sgm': _sgm('newstest2013', i, [('1012-bbc', 'en', NEWSTEST[2013][:2]),
                                                                      ('cyberpresse/2012/12/01/1564248', 'fr', NEWSTEST[2013][2:])])
            for i, l in enumerate(['fr', 'en'])})),
        'wmt14-test-full': ('/statmt.org/wmt14/test-full.tgz', targz({
            'test-full/newstest2014-fren-src.fr.sgm': _sgm('newstest2014', 0, [('1009-lemondefr', 'fr', NEWSTEST[2014][:3]), ('1016-latimes', 'en', NEWSTEST[2014][3:])]),
            'test-full/newstest2014-fren-ref.en.sgm': _sgm('newstest2014', 1, [('1009-lemondefr', 'fr', NEWSTEST[2014][:3]), ('1016-latimes', 'en', NEWSTEST[2014][3:])], ref=True),
            'test-full/newstest2014-deen-src.de.sgm': _sgm('newstest2014', 0, [('1', 'de', [('Hallo.', 'Hello.')])])})),
        'tinyshakespeare': ('/raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/input.txt',
                            (SHAKESPEARE * 8).encode()),
    }

# pairs each corpus trains on, once read (metadata dropped, the empty-sided Europarl pair dropped)
EXPECTED = {'iwslt2017': dict(train=len(IWSLT_TRAIN), valid=2, test=12),
            'wmt14': dict(train=len(EUROPARL) + len(COMMONCRAWL) + len(NEWS_COMMENTARY), valid=4, test=6)}

# --- the profile -----------------------------------------------------------------------------------------------------

def _toml_value(v):
    if isinstance(v, bool): return 'true' if v else 'false'
    if isinstance(v, (int, float)): return repr(v)
    if isinstance(v, str): return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list): return '[' + ', '.join(map(_toml_value, v)) + ']'
    raise TypeError(f'{v!r}')

def shrunk_profile(real:dict) -> dict:
    "The profile `real` with every size in `SHRUNK` replaced, and a `wmt14` task with the iwslt2017 recipe, shrunk alike."
    def shrink(task):
        out = dict(task)
        for k in out.keys() & SHRUNK.keys(): out[k] = SHRUNK[k] if k != 'd_model' else 8 * task['n_heads']
        return out
    prof = {k: v for k, v in real.items() if k != 'tasks'}
    prof['tasks'] = {t: shrink(p) for t, p in real['tasks'].items()}
    # the gpu profile has no WMT task: this one reads the WMT archives (Europarl v7, Common Crawl, News Commentary v9,
    # newstest2013 and newstest2014) through the same translation recipe
    prof['tasks']['wmt14'] = dict(prof['tasks']['iwslt2017'])
    return prof

def write_profile(prof:dict, path:Path):
    lines = ['# profiles/gpu.toml with its sizes shrunk (tests/test_gpu_profile.py)']
    lines += [f'{k} = {_toml_value(v)}' for k, v in prof.items() if k != 'tasks']
    for t, p in prof['tasks'].items():
        lines += ['', f'[tasks.{t}]'] + [f'{k} = {_toml_value(v)}' for k, v in p.items()]
    path.write_text('\n'.join(lines) + '\n', encoding='utf-8')

def test_shrunk_profile_differs_from_gpu_only_in_sizes(tmp_path):
    real = tomllib.loads((ROOT/'profiles'/'gpu.toml').read_text())
    write_profile(shrunk_profile(real), tmp_path/'gpu.toml')
    small = tomllib.loads((tmp_path/'gpu.toml').read_text())
    assert {k: v for k, v in small.items() if k != 'tasks'} == {k: v for k, v in real.items() if k != 'tasks'}
    assert list(small['tasks']) == list(real['tasks']) + ['wmt14'] and small['tasks']['wmt14'] == small['tasks']['iwslt2017']
    for t, p in real['tasks'].items():
        q = small['tasks'][t]
        assert list(q) == list(p), t
        assert {k: v for k, v in q.items() if k not in SHRUNK} == {k: v for k, v in p.items() if k not in SHRUNK}, t
        assert all(q[k] < p[k] for k in p.keys() & SHRUNK.keys()), t     # a size is only ever made smaller
    shrunk = {k for p in real['tasks'].values() for k in p.keys() & SHRUNK.keys()}
    assert shrunk == SHRUNK.keys(), SHRUNK.keys() - shrunk                 # every size named here is one of the profile's

# --- the run ---------------------------------------------------------------------------------------------------------

@pytest.fixture
def mirror():
    s = Server()
    served = archives()
    for key, (path, body) in served.items(): s.routes[path] = (200, body)
    yield s, served
    s.stop()

def _lines(path:Path) -> list:
    "The lines of a file split at '\\n' only (an untrained model's output may hold other line separators)."
    return path.read_text(encoding='utf-8').split('\n')[:-1]

def _tokenizers() -> set:
    return set((ROOT/'data'/'cache').glob('*.json')) if (ROOT/'data'/'cache').is_dir() else set()

def test_gpu_profile_end_to_end(mirror, tmp_path):
    """`posenc run --profile gpu --download` with the sizes shrunk, for one encoding and one seed (`PES` says why): every
    archive fetched once, checked, unpacked and read as many pairs as it holds; every run of every task finished;
    translation scored per test set; figures and the report (Markdown, HTML, PDF) drawn."""
    pytest.importorskip('posenc.figures'); pytest.importorskip('posenc.report')
    server, served = mirror
    (tmp_path/'data').mkdir()
    table = ''.join(f'[{k}]\nurls = ["{server.url}{path}"]\nchecksum = "sha256:{hashlib.sha256(body).hexdigest()}"\n\n'
                    for k, (path, body) in served.items())
    (tmp_path/'archives.toml').write_text(table, encoding='utf-8')
    prof = shrunk_profile(tomllib.loads((ROOT/'profiles'/'gpu.toml').read_text()))
    write_profile(prof, tmp_path/'gpu.toml')
    env = local_env(dict(os.environ, POSENC_DATA=str(tmp_path/'data'), POSENC_DATA_ONLY='1', POSENC_ARCHIVES=str(tmp_path/'archives.toml')))
    d = {k: tmp_path/k for k in ('runs', 'figures', 'report')}
    before, t0, cpu0 = _tokenizers(), time.time(), resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        r = subprocess.run(CMD + ['run', '--profile', str(tmp_path/'gpu.toml'), '--download', '--pes', PES, '--seeds', SEEDS,
                                  '--runs_dir', str(d['runs']), '--figures_dir', str(d['figures']), '--report_dir', str(d['report'])],
                           capture_output=True, text=True, timeout=900, env=env, cwd=tmp_path)
    finally:
        for p in _tokenizers() - before:   # the tokenizers of the fixture corpora, cached in the project: not kept
            if re.fullmatch(rf"(iwslt2017|wmt14)-v{SHRUNK['vocab_size']}-[0-9a-f]{{16}}\.json", p.name): p.unlink()
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"posenc run: {time.time() - t0:.0f} s wall, {cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime:.0f} s of CPU")
    print(r.stdout[-3000:])
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-6000:]

    # every archive fetched once from the mirror, nothing else asked for; each unpacked where the readers look
    assert dict(server.gets) == {path: 1 for path, _ in served.values()}
    data = tmp_path/'data'
    for rel in ('iwslt_fr-en/iwslt17_2017-01-trnted/fr-en/train.tags.fr-en.fr', 'iwslt_fr-en/iwslt17_2017-01-trnted/fr-en/IWSLT17.TED.tst2015.fr-en.en.xml',
                'wmt14_fr-en/training/europarl-v7.fr-en.en', 'wmt14_fr-en/training/news-commentary-v9.fr-en.fr',
                'wmt14_fr-en/commoncrawl/commoncrawl.fr-en.fr', 'wmt14_fr-en/test/newstest2013-src.en.sgm',
                'wmt14_fr-en/test-full/newstest2014-fren-ref.en.sgm', 'tinyshakespeare/input.txt'):
        assert (data/rel).is_file(), rel
    assert not list((data/'.downloading').glob('*.part-*'))

    # every run of the profile finished
    tasks = list(prof['tasks'])
    runs = {f'{t}__{pe}__s0' for t in tasks for pe in PES.split(',')}
    assert {p.name for p in d['runs'].iterdir() if p.is_dir() and not p.name.startswith('.')} == runs
    metrics = {n: json.loads((d['runs']/n/'metrics.json').read_text()) for n in sorted(runs)}
    for n, m in metrics.items():
        assert m['steps'] == SHRUNK['steps'], n
        cfg = json.loads((d['runs']/n/'config.json').read_text())
        assert cfg['profile'] == 'gpu', n

    # translation: the corpora read from the archives as many pairs as they hold, BLEU and chrF, a file pair per test set
    for t, want in EXPECTED.items():
        for pe in PES.split(','):
            n = f'{t}__{pe}__s0'; m = metrics[n]
            got = json.loads((d['runs']/n/'config.json').read_text())['data']
            assert (got['train_pairs'], got['valid_pairs'], got['test_pairs']) == (want['train'], want['valid'], want['test']), (n, got)
            assert set(m['bleu']) == set(m['chrf']) == {'greedy', 'beam'} and m['beam_size'] == 5
            sets = [f'iwslt17/tst{y}' for y in range(2010, 2016)] if t == 'iwslt2017' else ['newstest2014']
            assert list(m['by_test_set']) == sets, n
            for s, rec in m['by_test_set'].items():
                assert {'bleu', 'chrf'} <= rec.keys() and rec['sentences'] == (2 if t == 'iwslt2017' else 6), (n, s)
                hyp, ref = _lines(d['runs']/n/rec['hyp']), _lines(d['runs']/n/rec['ref'])
                assert len(hyp) == len(ref) == rec['sentences'], (n, s)
        if t == 'iwslt2017':   # the references are the segments of the .xml, stripped
            ref = _lines(d['runs']/n/m['by_test_set']['iwslt17/tst2015']['ref'])
            assert ref == [e for _, e in IWSLT_SETS['tst2015']]

    # figures and the report
    for fig in ('translation', 'lm', 'synthetic', 'loss_curves'): assert (d['figures']/f'{fig}.png').is_file(), fig
    md = d['report']/'report.md'
    assert md.is_file() and 'iwslt2017' in md.read_text() and 'wmt14' in md.read_text()
    for fmt in ('html', 'pdf'):
        assert f'{fmt}: ' in r.stdout
        assert (d['report']/f'report.{fmt}').is_file(), fmt
