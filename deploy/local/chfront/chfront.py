#!/usr/bin/env python3
"""chfront: the part of ClickHouse's HTTP interface that the Rust `clickhouse` crate uses, served by chdb.

Dev/test only. One chdb session per process (chdb allows one process per data directory), one global lock
around it, so every query is serialised. Facts behind the choices: shared/reference/rust-stack.md section 3.

    python chfront.py --host 127.0.0.1 --port 58120 --data DIR [--log FILE]
"""
import argparse
import json
import re
import signal
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

import chdb.session

from chproto import (Body, ChError, compressed_blocks, error_from_chdb, http_status, parse_multipart,
                     quote_ident, quote_literal)

# URL parameters that are part of the HTTP protocol, not settings. `readonly` is ignored on purpose: once set
# on the shared session it could not be reset, and the front has no users to protect anyway.
NON_SETTINGS = frozenset("""query database default_format decompress compress query_id session_id
    session_timeout session_check user password role buffer_size wait_end_of_query enable_http_compression
    http_zlib_compression_level client_protocol_version quota_key stacktrace readonly""".split())

# chdb's defaults differ from a server's for these; a server is what production talks to.
STARTUP_SETTINGS = {
    "async_insert": "0",
    "date_time_input_format": "basic",
    "cast_string_to_date_time_mode": "basic",
    "implicit_select": "0",
}

INSERT_RE = re.compile(r"^\s*(INSERT\s+INTO\s+.*?)\s+FORMAT\s+(\w+)\s*$", re.I | re.S)
BODY_INSERT_RE = re.compile(rb"^\s*(INSERT\s+INTO\s+.*?)\s+FORMAT\s+(\w+)[ \t]*\r?\n", re.I | re.S)
USE_RE = re.compile(rb"(^|;)\s*USE\s", re.I)
SETTING_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# chdb's Python wrapper turns these "formats" into pandas/pyarrow objects; a server has no such formats.
PYTHON_ONLY_FORMATS = frozenset(("dataframe", "datastore", "arrowtable"))
DRAIN_LIMIT = 1 << 30   # a failed insert reads at most this much of the rest of its body
SMALL_BODY = 64 << 10   # responses below this go out in one send() with their headers
INSERT_PIECE = 256 << 10  # appends to chdb are coalesced to at least this size

CONTENT_TYPES = (("tabseparated", "text/tab-separated-values; charset=UTF-8"), ("tsv", "text/tab-separated-values; charset=UTF-8"),
                 ("csv", "text/csv; charset=UTF-8; header=absent"), ("json", "application/json; charset=UTF-8"))


class Engine:
    """The chdb session plus the per-request state that must be restored around it."""

    def __init__(self, data_dir):
        self.session = chdb.session.Session(data_dir)
        self.lock = threading.Lock()
        self.current_db = None
        self.run_settings(STARTUP_SETTINGS)
        self.session.query("SELECT 1", "TabSeparated")

    def run_settings(self, settings):
        if settings:
            self.session.query("SET " + ", ".join(f"{k} = {quote_literal(v)}" for k, v in settings.items()),
                               "TabSeparated")

    def apply(self, database, settings):
        """Switch database and apply URL settings; caller holds the lock and must call restore()."""
        if database != self.current_db:
            self.current_db = None
            self.session.query(f"USE {quote_ident(database)}", "TabSeparated")
            self.current_db = database
        for k in settings:
            if not SETTING_NAME_RE.match(k):
                raise ChError(115, f"Unknown setting '{k}'", "UNKNOWN_SETTING")
        self.run_settings(settings)

    def restore(self, settings):
        """Undo URL settings: there are no HTTP sessions, so nothing may leak into the next request."""
        if not settings:
            return
        back = [f"{k} = {quote_literal(STARTUP_SETTINGS[k])}" if k in STARTUP_SETTINGS else f"{k} = DEFAULT"
                for k in settings if SETTING_NAME_RE.match(k)]
        try:
            self.session.query("SET " + ", ".join(back), "TabSeparated")
        except Exception:
            for item in back:  # a SET that failed half-way: reset what can be reset
                try:
                    self.session.query("SET " + item, "TabSeparated")
                except Exception:
                    pass

    def close(self):
        with self.lock:
            self.session.close()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"   # keep-alive; every reply carries Content-Length
    disable_nagle_algorithm = True  # else each reply waits ~40 ms for the client's delayed ACK
    timeout = 120                   # drop idle keep-alive connections eventually
    server_version = "chfront"

    def do_GET(self):
        self.serve()

    do_POST = do_GET

    def log_message(self, fmt, *args):  # http.server's own complaints (bad request lines) go to our log
        self.server.log(f"{self.command or '-'} - {fmt % args}")

    def serve(self):
        t0 = time.perf_counter()
        url = urlsplit(self.path)
        params = dict(parse_qsl(url.query, keep_blank_values=True))
        body = Body(self.rfile, self.headers)
        head, status = params.get("query", "")[:80], 200
        try:
            if url.path in ("/ping", "/replicas_status"):
                head = url.path
                self.drain(body)
                status = self.reply(200, b"Ok.\n", "text/plain; charset=UTF-8")
                return
            m = INSERT_RE.match(params.get("query", ""))
            if m:
                status = self.insert(params, body, m.group(1), m.group(2))
            else:
                status, head = self.query(params, body)
        except (ConnectionError, TimeoutError):
            self.close_connection, status = True, 499  # the client went away; nobody to answer
        finally:
            ms = (time.perf_counter() - t0) * 1000
            self.server.log(f"{self.command} {status} {ms:.1f}ms {' '.join(head.split())[:80]}")

    def common(self, params):
        db = params.get("database") or self.headers.get("X-ClickHouse-Database") or "default"
        settings = {k: v for k, v in params.items() if k not in NON_SETTINGS and not k.startswith("param_")}
        return db, settings

    def query(self, params, body):
        if self.headers.get_content_type() == "multipart/form-data":
            raw = body.read_all()
            params.update(parse_multipart(raw, self.headers.get_param("boundary") or ""))
            data = b""
        elif params.get("decompress") == "1":
            data = b"".join(compressed_blocks(body))
        else:
            data = body.read_all()
        sql = params.get("query", "").encode()
        sql = sql + b"\n" + data if sql and data else sql or data
        head = sql[:120].decode(errors="replace")
        if not sql.strip():
            return self.reply(200, b"Ok.\n", "text/plain; charset=UTF-8"), head
        fmt = params.get("default_format") or self.headers.get("X-ClickHouse-Format") or "TabSeparated"
        if fmt.lower() in PYTHON_ONLY_FORMATS:
            return self.fail(ChError(73, f"Unknown output format {fmt}", "UNKNOWN_FORMAT")), head
        qparams = {k[6:]: v for k, v in params.items() if k.startswith("param_")}
        db, settings = self.common(params)
        m = BODY_INSERT_RE.match(sql) if not params.get("query") else None
        if m:
            head = m.group(0).decode(errors="replace")
        engine = self.server.engine
        try:
            with engine.lock:
                engine.apply(db, settings)
                try:
                    if m:  # `INSERT … FORMAT X\n<data>` all in the body, as curl users send it
                        ins = engine.session.send_insert(m.group(1).decode(), m.group(2).decode())
                        try:
                            ins.append(sql[m.end():])
                            done = ins.finish()
                        except BaseException:
                            ins.cancel()
                            raise
                        summary, out = insert_summary(done), b""
                    else:
                        res = engine.session.query(sql, fmt, params=qparams or None)
                        summary = query_summary(res)
                        out = res.bytes() if res.size() < SMALL_BODY else res.get_memview().view()
                    if USE_RE.search(sql):
                        engine.current_db = None  # the body switched databases behind our back
                finally:
                    engine.restore(settings)
        except Exception as e:
            return self.fail(error_from_chdb(e)), head
        ctype = next((t for p, t in CONTENT_TYPES if fmt.lower().startswith(p)), "application/octet-stream")
        return self.reply(200, out, ctype, {"X-ClickHouse-Format": fmt, "X-ClickHouse-Summary": summary,
                                            "X-ClickHouse-Query-Id": params.get("query_id") or str(uuid.uuid4())}), head

    def insert(self, params, body, head, fmt):
        """Stream the request body into chdb as it arrives: no second copy of a big insert in memory."""
        db, settings = self.common(params)
        pieces = compressed_blocks(body) if params.get("decompress") == "1" else body.pieces()
        engine, err, done = self.server.engine, None, None
        with engine.lock:
            try:
                engine.apply(db, settings)
                ins = engine.session.send_insert(head, fmt)
                try:
                    pending, size = [], 0
                    for piece in pieces:
                        if size + len(piece) < INSERT_PIECE:
                            pending.append(piece)
                            size += len(piece)
                            continue
                        if pending:
                            pending.append(piece)
                            piece, pending, size = b"".join(pending), [], 0
                        ins.append(piece)
                    if pending:
                        ins.append(b"".join(pending))
                    done = ins.finish()
                except BaseException:
                    ins.cancel()
                    raise
            except ChError as e:
                err = e
            except (ConnectionError, TimeoutError):
                raise
            except Exception as e:
                err = error_from_chdb(e)
            finally:
                engine.restore(settings)
        if err is not None:
            if err.code == 33:  # the body itself is broken: no way to find its end, so hang up after replying
                self.close_connection = True
            else:
                self.drain(body)
            return self.fail(err)
        return self.reply(200, b"", "text/plain; charset=UTF-8",
                          {"X-ClickHouse-Summary": insert_summary(done),
                           "X-ClickHouse-Query-Id": params.get("query_id") or str(uuid.uuid4())})

    def drain(self, body):
        """Read what is left of the body, so the client sees our reply instead of a reset connection."""
        try:
            if not body.discard(DRAIN_LIMIT):
                self.close_connection = True
        except (ChError, OSError, ValueError):
            self.close_connection = True

    def fail(self, err):
        status = http_status(err.code)
        return self.reply(status, err.text().encode(), "text/plain; charset=UTF-8",
                          {"X-ClickHouse-Exception-Code": str(err.code)})

    def reply(self, status, payload, ctype, extra=None):
        lines = [f"HTTP/1.1 {status} {self.responses.get(status, ('',))[0]}", f"Content-Type: {ctype}",
                 f"Content-Length: {len(payload)}"]
        lines += [f"{k}: {v}" for k, v in (extra or {}).items()]
        lines.append("Connection: close" if self.close_connection else "Connection: Keep-Alive")
        header = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        if len(payload) < SMALL_BODY:
            self.wfile.write(header + bytes(payload))  # one send(): no Nagle interplay at all
        else:
            self.wfile.write(header)
            self.wfile.write(payload)
        return status


def query_summary(res):
    return json.dumps({"read_rows": str(res.rows_read()), "read_bytes": str(res.bytes_read()),
                       "written_rows": str(res.rows_written()), "written_bytes": str(res.bytes_written()),
                       "elapsed_ns": str(int(res.elapsed() * 1e9))}, separators=(",", ":"))


def insert_summary(done):
    return json.dumps({"read_rows": "0", "read_bytes": "0", "written_rows": str(done.rows_written),
                       "written_bytes": str(done.bytes_written), "elapsed_ns": str(int(done.elapsed * 1e9))},
                      separators=(",", ":"))


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, addr, engine, log_file):
        self.engine = engine
        self.log_file = log_file
        self.log_lock = threading.Lock()
        super().__init__(addr, Handler)

    def log(self, line):
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        with self.log_lock:
            self.log_file.write(f"{stamp} {line}\n")

    def handle_error(self, request, client_address):  # keep tracebacks in our log, not on stderr
        import traceback
        self.log("internal error: " + traceback.format_exc().replace("\n", " | "))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8123)
    ap.add_argument("--data", required=True, help="chdb data directory (one process per directory)")
    ap.add_argument("--log", help="request log file (default: stderr)")
    args = ap.parse_args()

    log_file = open(args.log, "a", buffering=1) if args.log else sys.stderr
    engine = Engine(args.data)
    server = Server((args.host, args.port), engine, log_file)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    # serve_forever runs on a thread because shutdown() must be called from another thread than it.
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
    server.log(f"chfront listening on {args.host}:{args.port}, data {args.data}")
    stop.wait()
    server.log("shutting down")
    server.shutdown()
    server.server_close()
    engine.close()  # waits for the query in flight, then flushes chdb cleanly
    server.log("stopped")


if __name__ == "__main__":
    main()
