#!/usr/bin/env python3
"""chfront: the part of ClickHouse's HTTP interface that the Rust `clickhouse` crate uses, served by chdb.

Dev/test only. chdb runs one engine per process, bound to one data directory, with any number of sessions on
it; statements on different sessions run side by side, as a server runs its clients' queries, so each request
takes a session of its own (sessions.py). The protocol facts behind each choice are in
shared/reference/rust-stack.md section 3.

    python chfront.py --host 127.0.0.1 --port 58120 --data DIR [--log FILE] [--sessions N]
"""
import argparse
import contextlib
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

import chdb.session

from chproto import (Body, ChError, compressed_blocks, error_from_chdb, http_status, parse_multipart,
                     quote_ident, quote_literal, summary)
from sessions import Sessions

# URL parameters that belong to the HTTP protocol, not to settings. `readonly` is dropped on purpose: once set
# on the shared session it could not be reset, and the front has no users to protect anyway.
NON_SETTINGS = frozenset("""query database default_format decompress compress query_id session_id
    session_timeout session_check user password role buffer_size wait_end_of_query enable_http_compression
    http_zlib_compression_level client_protocol_version quota_key stacktrace readonly""".split())

# Where chdb's defaults differ from a server's: production talks to a server, so tests must see its behaviour.
STARTUP_SETTINGS = {"async_insert": "0", "date_time_input_format": "basic",
                    "cast_string_to_date_time_mode": "basic", "implicit_select": "0"}

INSERT_RE = re.compile(r"^\s*(INSERT\s+INTO\s+.*?)\s+FORMAT\s+(\w+)\s*$", re.I | re.S)
BODY_INSERT_RE = re.compile(rb"^\s*(INSERT\s+INTO\s+.*?)\s+FORMAT\s+(\w+)[ \t]*\r?\n", re.I | re.S)
USE_RE = re.compile(rb"(^|;)\s*USE\s", re.I)
SETTING_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
PYTHON_ONLY_FORMATS = {"dataframe", "datastore", "arrowtable"}  # chdb's wrapper returns Python objects for these
DRAIN_LIMIT = 1 << 30  # a request whose body is not used (`/ping`) reads at most this much of it before answering
SMALL_BODY = 64 << 10  # replies below this go out in one send() together with their headers
TEXT = "text/plain; charset=UTF-8"
# At most this many statements run side by side, each on a session of its own; the next waits for one. More
# than the test suites and benchmarks ever run at once, so that, as on a server, a statement never waits
# behind others' (a session costs about 1 ms to open and no measurable memory).
SESSIONS = 64
CONTENT_TYPES = (("tabseparated", "text/tab-separated-values; charset=UTF-8"),
                 ("tsv", "text/tab-separated-values; charset=UTF-8"),
                 ("csv", "text/csv; charset=UTF-8; header=absent"), ("json", "application/json; charset=UTF-8"))


class Written:
    """What an insert's body carried, for its log line: bytes as chdb got them (decompressed), rows written."""

    def __init__(self):
        self.bytes, self.rows = 0, None

    def count(self, pieces):
        for piece in pieces:
            self.bytes += len(piece)
            yield piece


COLUMN_LIST_RE = re.compile(r"^(INSERT\s+INTO\s+\S+?)\s*\(([^()]*)\)", re.I | re.S)


def log_line(command, status, seconds, hold, written, head, error=None):
    """One request: status, total time, then how long it waited for a session (`wait`) and held it (`run`),
    so a slow line tells waiting from running; for an insert the rows written (a materialized view's rows
    count too, as in a server's summary) and the bytes chdb parsed; for a failure its error code. An insert's
    column list is cut to its length, so the statement's table stays in view."""
    parts = [command, str(status), f"{seconds * 1000:.1f}ms"]
    if hold:
        parts += [f"wait {hold.waited * 1000:.1f}ms", f"run {hold.held * 1000:.1f}ms"]
    if written:
        if written.rows is not None:
            parts.append(f"rows {written.rows}")
        parts.append(f"in {written.bytes / 1e6:.1f}MB" if written.bytes >= 100_000 else f"in {written.bytes}B")
    if error is not None:
        parts.append(f"code {error}")
    text = " ".join(head[:4000].split())
    m = COLUMN_LIST_RE.match(text)
    if m:
        text = f"{m.group(1)} ({m.group(2).count(',') + 1} columns){text[m.end():]}"
    parts.append(text[:100])
    return " ".join(parts)


class Engine:
    """One chdb session, plus the per-request state (database, settings) that must not leak between requests."""

    def __init__(self, data_dir):
        self.session = chdb.session.Session(data_dir)
        self.current_db = None
        self._set(STARTUP_SETTINGS.items())

    def _set(self, items):
        assignments = [f"{k} = {v if v == 'DEFAULT' else quote_literal(v)}" for k, v in items]
        if assignments:
            self.session.query("SET " + ", ".join(assignments), "TabSeparated")

    def apply(self, database, settings):
        """Switch database, apply URL settings. Caller holds the session and calls restore() afterwards."""
        if database != self.current_db:
            self.current_db = None
            self.session.query(f"USE {quote_ident(database)}", "TabSeparated")
            self.current_db = database
        bad = [k for k in settings if not SETTING_RE.match(k)]
        if bad:
            raise ChError(115, f"Unknown setting '{bad[0]}'", "UNKNOWN_SETTING")
        self._set(settings.items())

    def restore(self, settings):
        """There are no HTTP sessions: every URL setting goes back to its start-up value after the request."""
        back = [(k, STARTUP_SETTINGS.get(k, "DEFAULT")) for k in settings if SETTING_RE.match(k)]
        try:
            self._set(back)
        except Exception:
            for item in back:  # a setting that failed to apply fails to reset too: reset the others one by one
                try:
                    self._set([item])
                except Exception:
                    pass

    def insert(self, head, fmt, path):
        """Inserts the body spooled at `path` as one statement, `INSERT … FROM INFILE`. chdb's streaming insert
        API can lose a failure of the write itself (too many partitions for one block, a materialized view
        that throws: it reports rows written that never land); a statement reports every failure itself."""
        m = INSERT_SETTINGS_RE.match(head)
        try:
            return self.session.query(f"{m.group(1)} FROM INFILE {quote_literal(path)}{m.group(2) or ''} "
                                      f"FORMAT {fmt}", "TabSeparated")
        except Exception as e:
            raise spooled_error(error_from_chdb(e), path) from None


# An insert's head: the table and its columns, then its SETTINGS clause if any (which goes after FROM INFILE).
INSERT_SETTINGS_RE = re.compile(r"^(.*?)(\s+SETTINGS\s+.*)?$", re.I | re.S)


def spooled_error(err, path):
    """A failed insert's error as a server words it: chdb repeats the `Code: N. DB::Exception: ` prefix of an
    error raised while parsing, and says the data came from the spooled file."""
    prefix = f"Code: {err.code}. DB::Exception: "
    body = err.body[len(prefix):] if err.body.startswith(prefix * 2) else err.body
    body = body.replace(f": (in file/uri {path})", "").replace(
        ": While executing File: data for INSERT was parsed from file", "")
    return ChError(err.code, raw=body)


class Spool:
    """An insert's body, written to a file as it arrives before the insert waits for a session: memory stays
    bounded whatever the size, and a slow client holds no session while it sends."""

    def __init__(self, directory):
        self.file = tempfile.NamedTemporaryFile(dir=directory, suffix=".body")

    def fill(self, pieces):
        for piece in pieces:
            self.file.write(piece)
        self.file.flush()
        return self.file.name

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.file.close()  # deletes it


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"   # keep-alive: every reply carries Content-Length
    disable_nagle_algorithm = True  # TCP_NODELAY, else a reply can wait ~40 ms for the client's delayed ACK
    timeout = 120                   # idle keep-alive connections are dropped eventually

    def do_GET(self):
        t0 = time.perf_counter()
        url = urlsplit(self.path)
        params = dict(parse_qsl(url.query, keep_blank_values=True))
        self.head, status, self.hold, self.written, self.error = params.get("query", ""), 499, None, None, None
        try:
            body = Body(self.rfile, self.headers)
            if url.path in ("/ping", "/replicas_status"):
                self.head = url.path
                self.drain(body)
                status = self.reply(200, b"Ok.\n", TEXT)
            elif INSERT_RE.match(self.head):
                status = self.insert(params, body, *INSERT_RE.match(self.head).groups())
            else:
                status = self.query(params, body)
        except ChError as e:  # the body itself is malformed: its end can't be found, so answer and hang up
            self.close_connection = True
            status = self.fail(e)
        except (ConnectionError, TimeoutError):
            self.close_connection = True  # the client went away: nobody to answer
        finally:
            self.server.log(log_line(self.command, status, time.perf_counter() - t0, self.hold,
                                     self.written, self.head, self.error))

    do_POST = do_GET

    @contextlib.contextmanager
    def engine_for(self, params):
        """A session of the engine for this request, on its database with its URL settings, which go back to
        their start-up values after it. The hold (sessions.Hold) is kept for the log line's timings."""
        db, settings = self.common(params)
        self.hold = self.server.sessions.hold()
        with self.hold as engine:
            try:
                engine.apply(db, settings)
                yield engine
            finally:
                engine.restore(settings)

    def common(self, params):
        db = params.get("database") or self.headers.get("X-ClickHouse-Database") or "default"
        return db, {k: v for k, v in params.items() if k not in NON_SETTINGS and not k.startswith("param_")}

    def query(self, params, body):
        if self.headers.get_content_type() == "multipart/form-data":  # the crate's server-side params
            raw = body.read_all()
            try:
                params.update(parse_multipart(raw, self.headers.get_param("boundary") or ""))
            except ChError as e:  # the whole body is read: answer and keep the connection
                return self.fail(e)
            data = b""
        elif params.get("decompress") == "1":
            data = b"".join(compressed_blocks(body))
        else:
            data = body.read_all()
        sql = params.get("query", "").encode()
        sql = sql + b"\n" + data if sql and data else sql or data  # URL query, then the body, as a server does
        self.head = sql[:160].decode(errors="replace")
        if not sql.strip():
            return self.reply(200, b"Ok.\n", TEXT)
        fmt = params.get("default_format") or self.headers.get("X-ClickHouse-Format") or "TabSeparated"
        if fmt.lower() in PYTHON_ONLY_FORMATS:
            return self.fail(ChError(73, f"Unknown output format {fmt}", "UNKNOWN_FORMAT"))
        qparams = {k[6:]: v for k, v in params.items() if k.startswith("param_")}
        body_insert = None if params.get("query") else BODY_INSERT_RE.match(sql)  # curl-style INSERT + data
        if body_insert:
            head, ifmt = (g.decode() for g in body_insert.groups())
            return self.spooled_insert(params, head, ifmt, [sql[body_insert.end():]])
        try:
            with self.engine_for(params) as engine:
                res = engine.session.query(sql, fmt, params=qparams or None)
                # Big results go out straight from chdb's buffer, without a copy.
                out = res.bytes() if res.size() < SMALL_BODY else res.get_memview().view()
                if USE_RE.search(sql):
                    engine.current_db = None  # the SQL switched databases behind our back
        except Exception as e:
            return self.fail(error_from_chdb(e))
        ctype = next((t for p, t in CONTENT_TYPES if fmt.lower().startswith(p)), "application/octet-stream")
        return self.reply(200, out, ctype, {"X-ClickHouse-Format": fmt, **self.meta(params, res)})

    def insert(self, params, body, head, fmt):
        """An insert with its query in the URL and its data, plain or compressed, in the body."""
        pieces = compressed_blocks(body) if params.get("decompress") == "1" else body.pieces()
        return self.spooled_insert(params, head, fmt, pieces)

    def spooled_insert(self, params, head, fmt, pieces):
        """Spools the body, then inserts it on a session. A body that breaks off or is malformed raises
        (`do_GET` answers and hangs up); any other failure is answered here."""
        self.written = Written()
        with Spool(self.server.spool_dir) as spool:
            path = spool.fill(self.written.count(pieces))
            try:
                with self.engine_for(params) as engine:
                    done = engine.insert(head, fmt, path)
            except Exception as e:
                return self.fail(error_from_chdb(e))
        self.written.rows = done.rows_written()
        return self.reply(200, b"", TEXT, self.meta(params, done))

    def meta(self, params, res):
        return {"X-ClickHouse-Summary": summary(res), "X-ClickHouse-Query-Id": params.get("query_id") or uuid.uuid4()}

    def drain(self, body):
        """Read the rest of the body, so that the client gets our answer rather than a reset connection."""
        try:
            if not body.discard(DRAIN_LIMIT):
                self.close_connection = True
        except (ChError, OSError):
            self.close_connection = True

    def fail(self, err):
        self.error = err.code
        return self.reply(http_status(err.code), err.text().encode(), TEXT,
                          {"X-ClickHouse-Exception-Code": err.code})

    def reply(self, status, payload, ctype, extra=None):
        lines = [f"HTTP/1.1 {status} {self.responses.get(status, ('',))[0]}", f"Content-Type: {ctype}",
                 f"Content-Length: {len(payload)}", *(f"{k}: {v}" for k, v in (extra or {}).items()),
                 "Connection: close" if self.close_connection else "Connection: Keep-Alive"]
        header = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        if len(payload) < SMALL_BODY:
            self.wfile.write(header + bytes(payload))
        else:
            self.wfile.write(header)
            self.wfile.write(payload)
        return status

    def log_message(self, fmt, *args):  # http.server's own complaints (bad request lines) go to our log
        self.server.log(f"{self.command or '-'} {fmt % args}")


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, addr, log_file):
        self.sessions = self.spool_dir = None
        self.log_file = log_file
        self.log_lock = threading.Lock()
        super().__init__(addr, Handler)

    def log(self, line):
        now = time.time()
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now)) + f".{int(now % 1 * 1000):03d}"
        with self.log_lock:
            self.log_file.write(f"{stamp} {line}\n")

    def handle_error(self, request, client_address):  # a bug in a handler: keep the traceback in our log
        import traceback
        self.log("internal error: " + traceback.format_exc().replace("\n", " | "))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8123)
    ap.add_argument("--data", required=True, help="chdb data directory (one process per directory)")
    ap.add_argument("--log", help="request log file (default: stderr)")
    ap.add_argument("--sessions", type=int, default=SESSIONS,
                    help=f"most statements run side by side; more wait for a session (default {SESSIONS})")
    args = ap.parse_args()

    log_file = open(args.log, "a", buffering=1) if args.log else sys.stderr
    try:  # bind first: a busy port fails fast, before chdb claims the data directory
        server = Server((args.host, args.port), log_file)
    except OSError as e:
        sys.exit(f"chfront: cannot listen on {args.host}:{args.port}: {e.strerror}")
    server.spool_dir = os.path.join(os.path.dirname(os.path.abspath(args.data)), "spool")
    shutil.rmtree(server.spool_dir, ignore_errors=True)  # what a killed front left
    os.makedirs(server.spool_dir)
    server.sessions = Sessions(lambda: Engine(args.data), args.sessions)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    # serve_forever gets its own thread because shutdown() must be called from a different one.
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
    server.log(f"chfront listening on {args.host}:{args.port}, data {args.data}")
    stop.wait()
    server.log("shutting down")
    server.shutdown()
    server.server_close()
    server.sessions.close()  # lets the statements in flight finish, then closes chdb cleanly
    server.log("stopped")


if __name__ == "__main__":
    main()
