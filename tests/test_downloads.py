"""Downloads that fail cleanly, each failure made to happen on a real HTTP server on 127.0.0.1 (started by the test
on a free port and shut down by it): the next mirror is tried, one error says what every mirror answered, a stalled
connection times out, nothing of a failed download or a bad archive is kept, and two processes share one download."""
import hashlib, subprocess, sys, threading, time
from pathlib import Path
import pytest
from posenc import data
from posenc.data import Archive, DataError, DataFile, locate
from _http import BOUND, PROXIES, LOCAL, Server, targz

STALL = 1.0   # seconds the client waits on a stalled connection

@pytest.fixture
def server():
    s = Server()
    yield s
    s.stop()

@pytest.fixture(autouse=True)
def _local(monkeypatch):
    "Requests to 127.0.0.1 go straight to it, and a download that should succeed never waits long."
    for v in PROXIES: monkeypatch.delenv(v, raising=False)
    for k, v in LOCAL: monkeypatch.setenv(k, v)
    monkeypatch.setattr(data, 'DOWNLOAD_TIMEOUT', BOUND)

GOOD = targz({'pack/f.txt': 'ok\n', 'pack/g.txt': ''.join(hashlib.sha256(b'%d' % i).hexdigest() for i in range(3000))})   # ~100 kB
SHA = 'sha256:' + hashlib.sha256(GOOD).hexdigest()
DF = DataFile(('corp/pack/f.txt',), 'k')

def left(root:Path) -> list:
    "Every file under `root` but the download locks: what a failed download left behind."
    return sorted(str(p.relative_to(root)) for p in root.rglob('*') if p.is_file() and p.suffix != '.lock')

def test_next_mirror_after_404_and_500(server, tmp_path):
    server.routes.update({'/a.tgz': (404, b''), '/b.tgz': (500, b''), '/c.tgz': (200, GOOD)})
    arch = {'k': Archive(tuple(f'{server.url}/{n}.tgz' for n in 'abc'), SHA, 'corp')}
    assert locate(DF, tmp_path, archives=arch).read_text() == 'ok\n'
    assert [server.gets[f'/{n}.tgz'] for n in 'abc'] == [1, 1, 1]
    assert locate(DF, tmp_path, archives=arch) == tmp_path/'corp'/'pack'/'f.txt' and server.gets['/c.tgz'] == 1   # found, not fetched again

def test_every_mirror_fails_one_error(server, tmp_path):
    server.routes.update({'/a.tgz': (404, b''), '/b.tgz': (500, b'')})
    a, b = f'{server.url}/a.tgz', f'{server.url}/b.tgz'
    arch = {'k': Archive((a, b), SHA, 'corp')}
    with pytest.raises(DataError) as e: data._download('k', tmp_path, arch)
    assert str(e.value) == f"could not download k:\n  {a}: HTTP 404 Not Found\n  {b}: HTTP 500 Internal Server Error"
    with pytest.raises(DataError) as e: locate(DF, tmp_path, archives=arch)
    assert str(e.value).startswith(f"could not download k:\n  {a}: HTTP 404 Not Found\n  {b}: HTTP 500 Internal Server Error\n"
                                   "missing corpus file(s): f.txt\n")
    assert left(tmp_path) == [] and not (tmp_path/'corp').exists()

@pytest.mark.parametrize('where', ['before the answer', 'in the body'])
def test_stalled_connection_times_out(server, tmp_path, monkeypatch, where):
    def stall(h):   # accepts the connection, then sends nothing (or only the start of the body) until the test ends
        if where == 'in the body':
            h.send_response(200); h.send_header('Content-Length', str(len(GOOD))); h.end_headers(); h.wfile.write(GOOD[:100]); h.wfile.flush()
        server.release.wait(BOUND)
    monkeypatch.setattr(data, 'DOWNLOAD_TIMEOUT', STALL)
    server.routes['/s.tgz'] = stall
    url = f'{server.url}/s.tgz'
    t0 = time.monotonic()
    with pytest.raises(DataError) as e: data._download('k', tmp_path, {'k': Archive((url,), SHA, 'corp')})
    assert str(e.value) == f"could not download k:\n  {url}: timed out (nothing received for 1 s)"
    assert time.monotonic() - t0 < BOUND / 2 and left(tmp_path) == []

def test_truncated_body(server, tmp_path):
    def cut(h):   # announces the whole archive, sends half of it and closes the connection
        h.send_response(200); h.send_header('Content-Length', str(len(GOOD))); h.end_headers(); h.wfile.write(GOOD[:len(GOOD) // 2])
    server.routes['/t.tgz'] = cut
    url = f'{server.url}/t.tgz'
    with pytest.raises(DataError) as e: locate(DF, tmp_path, archives={'k': Archive((url,), None, 'corp')})
    assert f"{url}: truncated download (the connection closed after {len(GOOD) // 2:,} of {len(GOOD):,} bytes)" in str(e.value)
    assert left(tmp_path) == []

def test_corrupt_archive_is_not_unpacked(server, tmp_path):
    "Unpinned archives served whole by HTTP, but not archives: the error names the URL, and no member is left."
    server.routes.update({'/cut.tgz': (200, GOOD[:len(GOOD) // 2]), '/junk.tgz': (200, b'<html>moved</html>')})
    for name, why in (('cut', 'not a complete archive (EOFError: '), ('junk', 'not an archive (neither a zip file nor a tar file')):
        url = f'{server.url}/{name}.tgz'
        with pytest.raises(DataError) as e: locate(DF, tmp_path, archives={'k': Archive((url,), None, 'corp')})
        assert f"could not download k:\n  {url}: {why}" in str(e.value)
        assert left(tmp_path) == []

def test_checksum_mismatch(server, tmp_path):
    other = targz({'pack/f.txt': 'tampered\n'})
    server.routes['/k.tgz'] = (200, other)
    url = f'{server.url}/k.tgz'
    with pytest.raises(DataError) as e: locate(DF, tmp_path, archives={'k': Archive((url,), SHA, 'corp')})
    assert (f"{url}: sha256 checksum mismatch (expected {SHA[7:]}, got {hashlib.sha256(other).hexdigest()}); "
            "the download was not kept") in str(e.value)
    assert left(tmp_path) == []

def test_per_mirror_checksums(server, tmp_path):
    "Two mirrors serving different files (a .zip and a .tgz of the same texts), each pinned by its own digest."
    server.routes.update({'/x.zip': (404, b''), '/x.tgz': (200, GOOD)})
    arch = {'k': Archive((f'{server.url}/x.zip', f'{server.url}/x.tgz'), ('sha256:' + '0' * 64, 'md5:' + hashlib.md5(GOOD).hexdigest()), 'corp')}
    assert locate(DF, tmp_path, archives=arch).read_text() == 'ok\n'

def test_rerun_after_failure_starts_clean(server, tmp_path):
    "A killed run's working folder (with a partial file) and a failed run leave nothing that a re-run takes for the corpus."
    stale = tmp_path/'.downloading'/'k.part-killed'/'unpacked'/'pack'; stale.mkdir(parents=True)
    (stale/'f.txt').write_text('o')   # half a file from a run killed while unpacking
    url = f'{server.url}/k.tgz'; arch = {'k': Archive((url,), SHA, 'corp')}
    server.routes['/k.tgz'] = (200, GOOD[:len(GOOD) // 2])
    with pytest.raises(DataError, match='checksum mismatch'): locate(DF, tmp_path, archives=arch)
    assert left(tmp_path) == []   # the killed run's folder went too
    with pytest.raises(DataError): locate(DF, tmp_path, download=False, archives=arch)
    server.routes['/k.tgz'] = (200, GOOD)
    assert locate(DF, tmp_path, archives=arch).read_text() == 'ok\n'
    assert left(tmp_path) == ['corp/pack/f.txt', 'corp/pack/g.txt']

CHILD = '''
import sys, urllib.request
from posenc import data
base, root, sha = sys.argv[1:]
data._waiting = lambda key, lock: urllib.request.urlopen(base + '/waiting', timeout=10).read()   # tell the server
arch = {'k': data.Archive((base + '/slow.tgz',), sha, 'corp')}
print(data.locate(data.DataFile(('corp/pack/f.txt',), 'k'), root, archives=arch).read_text(), end='')
'''

def test_two_processes_one_download(server, tmp_path):
    "The second process finds the first one downloading, waits for its lock, then finds the files: one GET in all."
    first, waiting = threading.Event(), threading.Event()
    def slow(h):   # holds the first download until the second process says it waits
        first.set(); waiting.wait(BOUND)
        h.send_response(200); h.send_header('Content-Length', str(len(GOOD))); h.end_headers(); h.wfile.write(GOOD)
    def wait_note(h):
        waiting.set(); h.send_response(200); h.send_header('Content-Length', '0'); h.end_headers()
    server.routes.update({'/slow.tgz': slow, '/waiting': wait_note})
    cmd = [sys.executable, '-c', CHILD, server.url, str(tmp_path), SHA]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)]
    try:
        assert first.wait(30), procs[0].communicate(timeout=30)   # the first process holds the lock and is downloading
        procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        outs = [p.communicate(timeout=30) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None: p.kill(); p.wait()
    assert [o for o, _ in outs] == ['ok\n', 'ok\n'] and [p.returncode for p in procs] == [0, 0], outs
    assert server.gets['/slow.tgz'] == 1 and server.gets['/waiting'] == 1

@pytest.fixture
def no_iwslt(server, tmp_path, monkeypatch):
    "An empty machine whose IWSLT 2017 archive answers 404 at both its mirrors; the two URLs."
    urls = (f'{server.url}/wit3/fr-en.tgz', f'{server.url}/hub/fr-en.tgz')   # nothing is served there
    monkeypatch.setitem(data.ARCHIVES, 'iwslt17-trnted-fr-en', Archive(urls, None, 'iwslt_fr-en/iwslt17_2017-01-trnted'))
    monkeypatch.setattr(data, 'data_roots', lambda root=None: [tmp_path])
    monkeypatch.setenv(data.DATA_ENV, str(tmp_path))
    return urls

FAILED = "iwslt2017: its data is not on this machine and could not be fetched:\ncould not download iwslt17-trnted-fr-en:\n"

def test_task_available_raises_the_download_error(no_iwslt, tmp_path):
    from posenc import profiles
    assert profiles.task_available('iwslt2017') is False   # without download the task is left out, as before
    with pytest.raises(DataError) as e: profiles.task_available('iwslt2017', download=True)
    assert str(e.value).startswith(FAILED + f"  {no_iwslt[0]}: HTTP 404 Not Found\n  {no_iwslt[1]}: HTTP 404 Not Found\n")
    assert left(tmp_path) == []

def test_posenc_train_download_shows_the_error(no_iwslt, capsys):
    "`posenc train iwslt2017 rope --profile gpu --download` shows the 404, not a request for the flag it was given (its time is torch's import)."
    from posenc import cli
    assert cli.main(['train', 'iwslt2017', 'rope', '--profile', 'gpu', '--download']) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"posenc train: {FAILED}  {no_iwslt[0]}: HTTP 404 Not Found\n  {no_iwslt[1]}: HTTP 404 Not Found\n")
    assert '--download fetches it' not in err
