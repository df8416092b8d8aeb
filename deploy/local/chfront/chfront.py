#!/usr/bin/env python3
"""chfront: the part of ClickHouse's HTTP interface that the Rust `clickhouse` crate uses, served by chdb.

Dev/test only. chdb allows one process per data directory and runs one statement at a time per session, so
there is one session behind one global lock: every query is serialised. A server runs reads and writes side by
side, so an insert there never waits for other clients' SELECTs; to stay close to that, the lock is granted to
writes (INSERT, DDL, mutations) and to queries that ask for it with the server's `priority` setting ahead of
waiting plain reads. Plain reads go first come first served; among urgent statements the smallest goes first
(a priority read, then inserts by the number of columns they name; DDL last): on a server, writes that wait
together run together and the small ones end first, while here each would otherwise also wait out the large
ones queued before it. An urgent statement passed over URGENT_PASSED times goes next. After READ_PASSED urgent
statements in a row have passed waiting reads, the oldest read goes next, so reads are never starved. A read that waited while a
write ran, and named no table a waiting write inserts into when that write ended, goes before the waiting
urgent statements: on a server it would have run beside them and seen what the finished write stored, so it
should not wait out writes it cannot see (a flush's other tables). Answers are unchanged: only the order of
waiting statements is. The protocol facts behind each choice are in shared/reference/rust-stack.md section 3.

    python chfront.py --host 127.0.0.1 --port 58120 --data DIR [--log FILE]
"""
import argparse
import itertools
import re
import signal
import sys
import threading
import time
import uuid
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

import chdb.session

from chproto import (Body, ChError, coalesce, compressed_blocks, error_from_chdb, http_status, parse_multipart,
                     quote_ident, quote_literal, summary)

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
DRAIN_LIMIT = 1 << 30  # a failed insert reads at most this much more of its body before answering
SMALL_BODY = 64 << 10  # replies below this go out in one send() together with their headers
TEXT = "text/plain; charset=UTF-8"
# A waiting read lets at most this many urgent statements go first, then it is served: a burst of writes (a
# bulk copy's many inserts) must not starve the readers. Eight lets a whole `dual` flush (two merge reads,
# up to five inserts) through before a read that came during it.
READ_PASSED = 8
# A waiting urgent statement lets at most this many smaller ones go first, then it is served: a large insert
# must not starve behind a stream of small ones.
URGENT_PASSED = 8
# The size of an urgent statement whose work is not known (DDL, a mutation, an insert naming no columns).
UNKNOWN_SIZE = 1 << 30
# What a server runs beside its reads; everything else (SELECT, SHOW, DESCRIBE, EXISTS, WITH ...) is a read.
WRITE_RE = re.compile(rb"^\s*(?:INSERT|CREATE|ALTER|DROP|TRUNCATE|RENAME|OPTIMIZE|DELETE|UPDATE|EXCHANGE|"
                      rb"ATTACH|DETACH|SYSTEM|GRANT|REVOKE)\b", re.I)
CONTENT_TYPES = (("tabseparated", "text/tab-separated-values; charset=UTF-8"),
                 ("tsv", "text/tab-separated-values; charset=UTF-8"),
                 ("csv", "text/csv; charset=UTF-8; header=absent"), ("json", "application/json; charset=UTF-8"))


class Ticket:
    """One statement waiting for the lock. `writes`: the tables an urgent statement inserts into (empty for a
    priority read, None when unknown: DDL, mutations, which every read waits for); `words`: the identifiers
    a plain read names; `fresh`: a write ran while this read waited, and when it ended no waiting write
    inserted into a table the read names (nor was DDL waiting); `size`: how much work an urgent statement does,
    to order them (the columns an insert names: a part is written column by column, so a one-row insert into a
    69-column table costs several times one into a 19-column table); `passed`: how many urgent statements that
    came after this one went before it."""

    def __init__(self, urgent=False, writes=frozenset(), words=frozenset(), size=0):
        self.urgent, self.writes, self.words, self.fresh = urgent, writes, words, False
        self.size, self.passed = size, 0


class SchedLock:
    """The one lock on chdb, granted to urgent statements before plain reads (see the module docstring)."""

    def __init__(self, read_passed=READ_PASSED):
        self.cond = threading.Condition(threading.Lock())
        self.busy = None  # the ticket holding the lock
        self.waiting = (deque(), deque())  # (urgent, read) tickets, oldest first
        self.passed = 0  # urgent grants since the oldest waiting read started waiting
        self.read_passed = read_passed

    def _next(self):
        """Who goes next. Only `release` may make a waiter other than a newcomer next: it notifies every
        waiter, while an arrival notifies nobody. So an arrival must leave the answer as it was, or make
        itself next (a read is never fresh on arrival; an urgent one joins the end of its queue)."""
        urgent, read = self.waiting
        fresh = next((r for r in read if r.fresh), None)
        if fresh is not None:
            return fresh
        if urgent and not (read and self.passed >= self.read_passed):
            return self._smallest_urgent()
        return read[0] if read else self._smallest_urgent()

    def _smallest_urgent(self):
        """The smallest waiting urgent statement, the oldest among equals, unless the oldest has been passed
        over often enough. An arrival can only make itself this answer (it has been passed by nobody)."""
        urgent = self.waiting[0]
        if urgent[0].passed >= URGENT_PASSED:
            return urgent[0]
        return min(urgent, key=lambda t: t.size)

    def acquire(self, ticket=None):
        ticket = ticket or Ticket()
        queue = self.waiting[0 if ticket.urgent else 1]
        with self.cond:
            queue.append(ticket)
            while self.busy is not None or self._next() is not ticket:
                self.cond.wait()
            if ticket.urgent:
                for older in itertools.takewhile(lambda t: t is not ticket, queue):
                    older.passed += 1
            queue.remove(ticket)
            self.busy = ticket
            # Counts how long the oldest waiting read has been passed over; a read served resets it.
            self.passed = self.passed + 1 if ticket.urgent and self.waiting[1] else 0

    def release(self):
        with self.cond:
            if self.busy is not None and self.busy.writes != frozenset():
                # Judged now, against the writes waiting now: a write that comes later must not take
                # freshness back (see `_next`).
                urgent = self.waiting[0]
                if all(t.writes is not None for t in urgent):
                    pending = frozenset().union(*(t.writes for t in urgent))
                    for waiting in self.waiting[1]:
                        waiting.fresh = waiting.fresh or not (waiting.words & pending)
            self.busy = None
            self.cond.notify_all()

    def hold(self, ticket=None):
        return _Held(self, ticket or Ticket())

    # `with lock:` (shutdown) is a plain, non-urgent hold.
    def __enter__(self):
        self.acquire()

    def __exit__(self, *exc):
        self.release()


class _Held:
    """One hold of the lock, timed: how long it queued (`waited`) and how long it ran (`held`)."""

    def __init__(self, lock, ticket):
        self.lock, self.ticket, self.waited, self.held, self.t = lock, ticket, 0.0, 0.0, 0.0

    def __enter__(self):
        t0 = time.perf_counter()
        self.lock.acquire(self.ticket)
        self.t = time.perf_counter()
        self.waited = self.t - t0

    def __exit__(self, *exc):
        self.held = time.perf_counter() - self.t
        self.lock.release()


class Written:
    """What an insert's body carried, for its log line: bytes as chdb got them (decompressed), rows written."""

    def __init__(self):
        self.bytes, self.rows = 0, None

    def count(self, pieces):
        for piece in pieces:
            self.bytes += len(piece)
            yield piece


COLUMN_LIST_RE = re.compile(r"^(INSERT\s+INTO\s+\S+?)\s*\(([^()]*)\)", re.I | re.S)


def log_line(command, status, seconds, hold, written, head):
    """One request: status, total time, then how long it queued for the engine (`wait`) and ran on it (`run`),
    so a slow line tells waiting from running; for an insert the rows written (a materialized view's rows
    count too, as in a server's summary) and the bytes chdb parsed. An insert's column list is cut to its
    length, so the statement's table stays in view."""
    parts = [command, str(status), f"{seconds * 1000:.1f}ms"]
    if hold:
        parts += [f"wait {hold.waited * 1000:.1f}ms", f"run {hold.held * 1000:.1f}ms"]
    if written:
        if written.rows is not None:
            parts.append(f"rows {written.rows}")
        parts.append(f"in {written.bytes / 1e6:.1f}MB" if written.bytes >= 100_000 else f"in {written.bytes}B")
    text = " ".join(head[:4000].split())
    m = COLUMN_LIST_RE.match(text)
    if m:
        text = f"{m.group(1)} ({m.group(2).count(',') + 1} columns){text[m.end():]}"
    parts.append(text[:100])
    return " ".join(parts)


def urgent(sql, settings):
    """Writes, and statements that carry a non-zero `priority` setting (the flush's merge reads), go first."""
    try:
        if int(settings.get("priority", 0)) > 0:
            return True
    except ValueError:
        pass
    return bool(WRITE_RE.match(sql))


# An insert's table, and its column list when it names one.
INSERT_TABLE_RE = re.compile(rb"^\s*INSERT\s+INTO\s+(?:`?\w+`?\.)?`?(\w+)`?\s*(?:\(([^()]*)\))?", re.I | re.S)
WORD_RE = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


def ticket_for(sql, settings):
    """How a statement waits for the lock (see `Ticket`)."""
    if WRITE_RE.match(sql):
        table = INSERT_TABLE_RE.match(sql)
        if table is None:
            return Ticket(urgent=True, writes=None, size=UNKNOWN_SIZE)
        columns = table.group(2)
        size = columns.count(b",") + 1 if columns is not None else UNKNOWN_SIZE
        return Ticket(urgent=True, writes=frozenset([table.group(1).decode().lower()]), size=size)
    if urgent(sql, settings):
        return Ticket(urgent=True)  # a priority read changes nothing
    return Ticket(words=frozenset(w.decode().lower() for w in WORD_RE.findall(sql)))


class Engine:
    """The chdb session, plus the per-request state (database, settings) that must not leak between requests."""

    def __init__(self, data_dir):
        self.session = chdb.session.Session(data_dir)
        self.lock = SchedLock()
        self.current_db = None
        self._set(STARTUP_SETTINGS.items())

    def _set(self, items):
        assignments = [f"{k} = {v if v == 'DEFAULT' else quote_literal(v)}" for k, v in items]
        if assignments:
            self.session.query("SET " + ", ".join(assignments), "TabSeparated")

    def apply(self, database, settings):
        """Switch database, apply URL settings. Caller holds the lock and calls restore() afterwards."""
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

    def insert(self, head, fmt, pieces):
        before = self.error_counts()
        ins = self.session.send_insert(head, fmt)
        try:
            for piece in coalesce(pieces):
                ins.append(piece)
            done = ins.finish()
        except BaseException:
            ins.cancel()
            raise
        # chdb's streaming insert can lose a failure of the write itself (too many partitions for
        # one block, a materialized view that throws): finish() reports rows written that never
        # land. The engine still counts the exception in system.errors, and nothing else runs
        # while the lock is held, so a count that moved during this insert is its failure.
        failed = self.raised_since(before)
        if failed is not None:
            raise failed
        return done

    def error_counts(self):
        res = self.session.query("SELECT code, value FROM system.errors WHERE remote = 0", "TabSeparated")
        return dict(line.split("\t") for line in res.bytes().decode().splitlines() if line)

    def raised_since(self, before):
        res = self.session.query(
            "SELECT code, value, name, last_error_message FROM system.errors WHERE remote = 0 "
            "ORDER BY last_error_time DESC", "TabSeparated")
        for line in res.bytes().decode().splitlines():
            code, value, name, message = line.split("\t", 3)
            if value != before.get(code):
                text = message.replace("\\n", "\n").replace("\\t", "\t").replace("\\\\", "\\").rstrip(".")
                return ChError(int(code), text, name)
        return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"   # keep-alive: every reply carries Content-Length
    disable_nagle_algorithm = True  # TCP_NODELAY, else a reply can wait ~40 ms for the client's delayed ACK
    timeout = 120                   # idle keep-alive connections are dropped eventually

    def do_GET(self):
        t0 = time.perf_counter()
        url = urlsplit(self.path)
        params = dict(parse_qsl(url.query, keep_blank_values=True))
        self.head, status, self.lock_hold, self.written = params.get("query", ""), 499, None, None
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
            self.server.log(log_line(self.command, status, time.perf_counter() - t0, self.lock_hold,
                                     self.written, self.head))

    do_POST = do_GET

    def held(self, ticket):
        self.lock_hold = self.server.engine.lock.hold(ticket)
        return self.lock_hold

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
        db, settings = self.common(params)
        engine = self.server.engine
        try:
            with self.held(ticket_for(sql, settings)):
                try:
                    engine.apply(db, settings)
                    if body_insert:
                        head, ifmt = (g.decode() for g in body_insert.groups())
                        res, out = engine.insert(head, ifmt, [sql[body_insert.end():]]), b""
                    else:
                        res = engine.session.query(sql, fmt, params=qparams or None)
                        # Big results go out straight from chdb's buffer, without a copy.
                        out = res.bytes() if res.size() < SMALL_BODY else res.get_memview().view()
                    if USE_RE.search(sql):
                        engine.current_db = None  # the SQL switched databases behind our back
                finally:
                    engine.restore(settings)
        except Exception as e:
            return self.fail(error_from_chdb(e))
        ctype = next((t for p, t in CONTENT_TYPES if fmt.lower().startswith(p)), "application/octet-stream")
        return self.reply(200, out, ctype, {"X-ClickHouse-Format": fmt, **self.meta(params, res)})

    def insert(self, params, body, head, fmt):
        """Stream the body into chdb as it arrives: a big insert is never held in memory whole."""
        db, settings = self.common(params)
        pieces = compressed_blocks(body) if params.get("decompress") == "1" else body.pieces()
        self.written = Written()
        pieces = self.written.count(pieces)
        engine = self.server.engine
        with self.held(ticket_for(head.encode(), settings)):
            try:
                engine.apply(db, settings)
                done = engine.insert(head, fmt, pieces)
            except (ConnectionError, TimeoutError):
                raise
            except ChError as e:
                if e.code == 33:  # a malformed body: caught by do_GET, which hangs up after answering
                    raise
                err = e
            except Exception as e:
                err = error_from_chdb(e)
            else:
                err = None
                self.written.rows = done.rows_written
            finally:
                engine.restore(settings)
        if err is not None:
            self.drain(body)  # outside the lock: reading up to 1 GiB must not hold up other clients
            return self.fail(err)
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
        self.engine = None
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
    args = ap.parse_args()

    log_file = open(args.log, "a", buffering=1) if args.log else sys.stderr
    try:  # bind first: a busy port fails fast, before chdb claims the data directory
        server = Server((args.host, args.port), log_file)
    except OSError as e:
        sys.exit(f"chfront: cannot listen on {args.host}:{args.port}: {e.strerror}")
    server.engine = Engine(args.data)
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
    with server.engine.lock:  # let the statement in flight finish, then close chdb cleanly
        server.engine.session.close()
    server.log("stopped")


if __name__ == "__main__":
    main()
