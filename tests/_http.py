"""A local HTTP server for the download tests: it listens on 127.0.0.1 only (a free port), answers each path from a
table of routes, and counts the GETs it saw; and the archives it serves."""
import collections, http.server, io, tarfile, threading

BOUND = 10.0  # no handler waits longer than this, whatever happens to the test

class Server:
    "An HTTP server on 127.0.0.1: `routes[path]` is (status, body) or a function of the handler; `gets` counts GETs per path."
    def __init__(self):
        self.routes, self.gets, self.lock = {}, collections.Counter(), threading.Lock()
        self.release = threading.Event()   # set at shutdown: ends every handler that stalls
        srv = self
        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args): pass
            def do_GET(self):
                with srv.lock: srv.gets[self.path] += 1
                route = srv.routes.get(self.path, (404, b''))
                if callable(route): return route(self)
                code, body = route
                if code != 200: return self.send_error(code)
                self.send_response(200); self.send_header('Content-Length', str(len(body))); self.end_headers()
                self.wfile.write(body)
        self.httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f'http://127.0.0.1:{self.httpd.server_port}'
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs=dict(poll_interval=0.05), daemon=True)
        self.thread.start()

    def stop(self):
        self.release.set(); self.httpd.shutdown(); self.httpd.server_close(); self.thread.join(BOUND)

LOCAL = ('no_proxy', '127.0.0.1,localhost'), ('NO_PROXY', '127.0.0.1,localhost')
PROXIES = ('http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY')

def local_env(env:dict) -> dict:
    "`env` with no proxy variables, and 127.0.0.1 reached directly: what a process that downloads from the server needs."
    env = {k: v for k, v in env.items() if k not in PROXIES}
    env.update(LOCAL)
    return env

def targz(files:dict) -> bytes:
    "A .tgz holding `files` (member name -> text, or bytes)."
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w:gz') as t:
        for name, text in files.items():
            b = text if isinstance(text, bytes) else text.encode(); info = tarfile.TarInfo(name); info.size = len(b); t.addfile(info, io.BytesIO(b))
    return buf.getvalue()
