"Where posenc.data looks for corpus files (no network: downloads are disabled or use file:// URLs)."
import tarfile
import pytest
from posenc import data
from posenc.data import Archive, DataError, DataFile, file_digest, get_corpus, locate, tinyshakespeare

TEXT = 'First Citizen:\nSpeak, speak.\n' * 10

def test_env_var_is_used(tmp_path, monkeypatch):
    (tmp_path/'tinyshakespeare').mkdir(); (tmp_path/'tinyshakespeare'/'input.txt').write_text(TEXT)
    monkeypatch.setenv(data.DATA_ENV, str(tmp_path))
    assert data.data_roots()[0] == tmp_path
    ts = tinyshakespeare(download=False)
    assert ts.train + ts.valid == TEXT

def test_explicit_root_wins_and_is_exclusive(tmp_path, monkeypatch):
    a, b = tmp_path/'a', tmp_path/'b'
    for d, t in [(a, TEXT), (b, TEXT.upper())]: d.mkdir(); (d/'input.txt').write_text(t)
    monkeypatch.setenv(data.DATA_ENV, str(b))
    assert tinyshakespeare(a, download=False).train == TEXT[:int(0.9 * len(TEXT))]
    with pytest.raises(DataError, match='input.txt'): tinyshakespeare(tmp_path/'empty', download=False)

def test_missing_files_message(tmp_path):
    with pytest.raises(DataError) as e: get_corpus('wmt14-small', tmp_path, download=False)
    msg = str(e.value)
    assert 'europarl-v7.fr-en.fr' in msg and 'newstest2014-fren-src.fr.sgm' in msg and str(tmp_path) in msg

def test_download_from_file_url(tmp_path):
    (tmp_path/'src'/'pack').mkdir(parents=True); (tmp_path/'src'/'pack'/'f.txt').write_text('ok')
    with tarfile.open(tmp_path/'a.tgz', 'w:gz') as t: t.add(tmp_path/'src'/'pack', arcname='pack')
    arch = {'k': Archive(((tmp_path/'a.tgz').as_uri(),), 'sha256:' + file_digest(tmp_path/'a.tgz'), 'corp')}
    root = tmp_path/'root'; root.mkdir()
    path = locate(DataFile(('corp/pack/f.txt',), 'k'), root, archives=arch)
    assert path == root/'corp'/'pack'/'f.txt' and path.read_text() == 'ok'
    bad = {'k': Archive(((tmp_path/'a.tgz').as_uri(),), 'sha256:' + '0' * 64, 'corp2')}
    with pytest.raises(DataError, match='checksum mismatch'): locate(DataFile(('corp2/pack/f.txt',), 'k'), root, archives=bad)
