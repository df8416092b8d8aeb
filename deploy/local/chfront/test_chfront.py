"""Protocol-edge smoke test of chfront (stdlib unittest; needs the venv that has chdb and lz4).

    .local/venv/bin/python -m unittest deploy/local/chfront/test_chfront.py

Starts the front on a free port with a temporary data directory. The Rust side tests the real `clickhouse`
crate against it; this file pins down what the crate relies on (shared/reference/rust-stack.md section 3.2).
"""
import http.client
import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import lz4.block

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chfront import READ_PASSED, UNKNOWN_SIZE, URGENT_PASSED, SchedLock, Ticket, ticket_for, urgent  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BOUNDARY = "clickhouse-rs-boundary-Ab3dEf6hIj9kLm0n"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def leb128(n):
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def read_leb128(buf, pos):
    shift = value = 0
    while True:
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, pos


def rowbinary(rows):
    """(UInt64, String) rows as RowBinary."""
    return b"".join(struct.pack("<Q", i) + leb128(len(s)) + s for i, s in rows)


def native_lz4_block(raw):
    """One ClickHouse native compressed block as the crate sends with decompress=1: 16-byte checksum (left zero:
    the front does not verify it), method 0x82, u32 LE size of header+payload, u32 LE raw size, LZ4 block."""
    payload = lz4.block.compress(raw, store_size=False)
    return bytes(16) + bytes([0x82]) + struct.pack("<II", len(payload) + 9, len(raw)) + payload


def split(data, *sizes):
    """Cut data at odd places, so that rows and blocks straddle HTTP chunks."""
    out, pos = [], 0
    for n in sizes:
        out.append(data[pos:pos + n])
        pos += n
    out.append(data[pos:])
    return [p for p in out if p]


class ChFrontTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="chfront-test-")
        cls.port = free_port()
        cls.log = os.path.join(cls.tmp, "chfront.log")
        with open(os.path.join(cls.tmp, "stderr"), "wb") as err:
            cls.proc = subprocess.Popen(
                [sys.executable, os.path.join(HERE, "chfront.py"), "--host", "127.0.0.1", "--port", str(cls.port),
                 "--data", os.path.join(cls.tmp, "data"), "--log", cls.log], stdout=subprocess.DEVNULL, stderr=err)
        deadline = time.monotonic() + 30
        while True:
            try:
                if cls.request(cls, "GET", "/ping")[2] == b"Ok.\n":
                    break
            except OSError:
                pass
            if cls.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("chfront did not start: " + open(os.path.join(cls.tmp, "stderr")).read()[-2000:])
            time.sleep(0.05)
        cls.conn = http.client.HTTPConnection("127.0.0.1", cls.port, timeout=60)

    @classmethod
    def tearDownClass(cls):
        cls.conn.close()
        cls.proc.send_signal(signal.SIGTERM)
        try:
            rc = cls.proc.wait(30)
            if rc != 0:  # SIGTERM must be a clean shutdown
                raise RuntimeError(f"chfront exited with {rc}: " + open(os.path.join(cls.tmp, "stderr")).read()[-2000:])
        finally:
            if cls.proc.poll() is None:
                cls.proc.kill()
            shutil.rmtree(cls.tmp, ignore_errors=True)

    def request(self, method, path, body=None, headers=None, conn=None):
        """(status, headers, body) over a keep-alive connection (a fresh one when none is given)."""
        own = conn is None
        conn = conn or http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        headers = dict(headers or {})
        chunked = body is not None and not isinstance(body, (bytes, str))
        if chunked:
            headers["Transfer-Encoding"] = "chunked"
        try:
            conn.request(method, path, body, headers, encode_chunked=chunked)
            r = conn.getresponse()
            return r.status, r, r.read()
        finally:
            if own:
                conn.close()

    def sql(self, query, path="/", **kw):
        status, r, body = self.request("POST", path, query.encode(), conn=self.conn, **kw)
        self.assertEqual(status, 200, body)
        return body

    def assert_ch_error(self, result, status, code):
        st, r, body = result
        self.assertEqual(st, status, body)
        self.assertEqual(r.getheader("X-ClickHouse-Exception-Code"), str(code))
        self.assertTrue(body.startswith(f"Code: {code}. DB::Exception:".encode()), body)
        self.assertEqual(int(r.getheader("Content-Length")), len(body))

    def test_ping(self):
        for method, path in (("GET", "/ping"), ("POST", "/ping"), ("GET", "/"), ("POST", "/")):
            st, r, body = self.request(method, path, conn=self.conn)
            self.assertEqual((st, body), (200, b"Ok.\n"), (method, path))

    def test_rowbinary_inserts_plain_and_lz4(self):
        self.sql("CREATE TABLE rb (id UInt64, name String) ENGINE = MergeTree ORDER BY id")
        plain = rowbinary((i, f"row-{i}".encode()) for i in range(1000))
        st, _, body = self.request("POST", "/?query=INSERT%20INTO%20%60rb%60(%60id%60,%60name%60)%20FORMAT%20RowBinary",
                                   iter(split(plain, 5, 1, 4096, 3)), conn=self.conn)
        self.assertEqual((st, body), (200, b""))
        # The crate's default: RBWNAT header (column count, names, types from DESCRIBE), LZ4 blocks, decompress=1.
        header = leb128(2) + leb128(2) + b"id" + leb128(4) + b"name" + leb128(6) + b"UInt64" + leb128(6) + b"String"
        raw = header + rowbinary((i, b"x" * (i % 50)) for i in range(1000, 3000))
        stream = native_lz4_block(raw[:7000]) + native_lz4_block(raw[7000:])
        st, _, body = self.request(
            "POST", "/?query=INSERT%20INTO%20rb%20FORMAT%20RowBinaryWithNamesAndTypes&decompress=1",
            iter(split(stream, 10, 20, 3000)), conn=self.conn)
        self.assertEqual((st, body), (200, b""))
        self.assertEqual(self.sql("SELECT count(), sum(id), max(length(name)) FROM rb"),
                         f"3000\t{sum(range(3000))}\t49\n".encode())

    def test_select_formats(self):
        self.assertEqual(self.sql("SELECT toUInt64(7) AS n, 'a\\tb' AS s"), b"7\ta\\tb\n")
        body = self.sql("SELECT toUInt64(7) AS n, 'hi' AS s", "/?default_format=RowBinaryWithNamesAndTypes")
        count, pos = read_leb128(body, 0)
        self.assertEqual(count, 2)
        names = []
        for _ in range(2 * count):
            n, pos = read_leb128(body, pos)
            names.append(body[pos:pos + n].decode())
            pos += n
        self.assertEqual(names, ["n", "s", "UInt64", "String"])
        self.assertEqual(body[pos:], struct.pack("<Q", 7) + b"\x02hi")
        # DESCRIBE as the crate's insert validation sends it: 7 columns in the header.
        self.sql("CREATE TABLE IF NOT EXISTS d (a UInt8) ENGINE = Memory")
        body = self.sql("DESCRIBE TABLE `d`", "/?default_format=RowBinaryWithNamesAndTypes&describe_include_subcolumns=0")
        self.assertEqual(read_leb128(body, 0)[0], 7)

    def test_server_side_params_multipart(self):
        form = "".join(f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n" for k, v in (
            ("query", "SELECT {name:String} AS a, {n:UInt32} + 1 AS b"), ("param_name", "it's\\n"),
            ("param_n", "41"))) + f"--{BOUNDARY}--\r\n"
        body = self.sql(form, headers={"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"})
        self.assertEqual(body, b"it\\'s\\n\t42\n")

    def test_a_param_over_the_field_limit_is_refused_as_a_server_does(self):
        # http_max_field_value_size (128 KiB): a list of ids must travel in several parameters.
        def form(value):
            fields = (("query", "SELECT length({ids:Array(String)})"), ("param_ids", value))
            return "".join(f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n"
                           for k, v in fields) + f"--{BOUNDARY}--\r\n"
        headers = {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}
        # The limit plus one byte still passes (the server checks before appending each byte).
        fits = "[" + ",".join(["'" + "x" * 1021 + "'"] * 128) + "]"
        self.assertEqual(len(fits), 128 * 1024 + 1)
        self.assertEqual(self.sql(form(fits), headers=headers), b"128\n")
        over = "['x" + fits[2:]
        st, r, body = self.request("POST", "/", form(over).encode(), headers, conn=self.conn)
        self.assertEqual(st, 500, body)
        self.assertEqual(r.getheader("X-ClickHouse-Exception-Code"), "1000")
        self.assertIn(b"Field value too long", body)
        self.assertEqual(self.sql("SELECT 1"), b"1\n")  # the connection stays usable

    def test_settings_reset_after_request(self):
        q = "SELECT getSetting('max_block_size'), getSetting('async_insert')"
        default = self.sql(q)
        self.assertEqual(default.split(b"\t")[1], b"false\n")  # startup SET async_insert = 0, as on a server
        self.assertEqual(self.sql(q, "/?max_block_size=1234&async_insert=1"), b"1234\ttrue\n")
        self.assertEqual(self.sql(q), default)
        self.assert_ch_error(self.request("POST", "/?no_such_setting=1", b"SELECT 1", conn=self.conn), 404, 115)
        self.assertEqual(self.sql(q), default)

    def test_the_priority_setting_is_accepted_and_reset(self):
        q = "SELECT getSetting('priority')"
        self.assertEqual(self.sql(q, "/?priority=1"), b"1\n")
        self.assertEqual(self.sql(q), b"0\n")

    def test_errors(self):
        self.assert_ch_error(self.request("POST", "/", b"SELECT * FROM missing_table", conn=self.conn), 404, 60)
        self.assert_ch_error(self.request("POST", "/", b"SELEKT 1", conn=self.conn), 400, 62)
        self.assertEqual(self.sql("SELECT 1"), b"1\n")  # the connection stays usable after an error

    def test_databases(self):
        self.assert_ch_error(self.request("POST", "/?database=no_such_db", b"SELECT 1", conn=self.conn), 404, 81)
        self.sql("CREATE DATABASE IF NOT EXISTS t_iso")
        self.sql("CREATE TABLE t (x UInt8) ENGINE = Memory", "/?database=t_iso")
        self.assertEqual(self.sql("SELECT currentDatabase(), count() FROM t", "/?database=t_iso"), b"t_iso\t0\n")
        self.assertEqual(self.sql("SELECT currentDatabase()"), b"default\n")
        self.sql("USE t_iso")  # a USE in the body must not leak into the next request
        self.assertEqual(self.sql("SELECT currentDatabase()"), b"default\n")

    def test_failed_large_insert_is_answered(self):
        """20 MB of chunked body into a missing table: the front drains it and answers Code 60, keep-alive."""
        piece = rowbinary((i, b"y" * 40) for i in range(20000))
        chunks = [piece] * (20_000_000 // len(piece) + 1)
        for path in ("/?query=INSERT%20INTO%20missing%20FORMAT%20RowBinary",
                     "/?query=INSERT%20INTO%20missing%20FORMAT%20RowBinary&decompress=1"):
            body = iter([native_lz4_block(c) for c in chunks] if "decompress" in path else chunks)
            result = self.request("POST", path, body, conn=self.conn)
            self.assert_ch_error(result, 404, 60)
            self.assertNotEqual((result[1].getheader("Connection") or "").lower(), "close")
        self.assertEqual(self.sql("SELECT 1"), b"1\n")

    def test_bad_rows_are_answered(self):
        self.sql("CREATE TABLE IF NOT EXISTS bad (id UInt64) ENGINE = MergeTree ORDER BY id")
        result = self.request("POST", "/?query=INSERT%20INTO%20bad%20FORMAT%20TSV", iter([b"1\n2\nnot-a-number\n"] * 3),
                              conn=self.conn)
        self.assertNotEqual(result[0], 200)
        self.assertIsNotNone(result[1].getheader("X-ClickHouse-Exception-Code"))
        self.assertEqual(self.sql("SELECT 1"), b"1\n")

    def test_a_write_the_engine_refuses_is_an_error_not_a_200(self):
        """Every failed streamed insert answers as a server does; nothing lands, and the next insert works."""
        self.sql("CREATE TABLE IF NOT EXISTS monthly (t DateTime, x UInt32) ENGINE = MergeTree "
                 "PARTITION BY toYYYYMM(t) ORDER BY t")
        months = "".join(f"{2000 + m // 12}-{m % 12 + 1:02d}-01 00:00:00\t{m}\n" for m in range(101)).encode()
        for body in (months, iter([months[:1000], months[1000:]])):  # one piece, and chunked
            self.assert_ch_error(self.request("POST", "/?query=INSERT%20INTO%20monthly%20FORMAT%20TSV", body,
                                              conn=self.conn), 500, 252)
        self.assertEqual(self.sql("SELECT count() FROM monthly"), b"0\n")
        self.assert_ch_error(self.request("POST", "/?query=INSERT%20INTO%20monthly%20FORMAT%20RowBinary",
                                          b"\x01\x02", conn=self.conn), 500, 33)
        self.assert_ch_error(self.request("POST", "/?query=INSERT%20INTO%20monthly%20(nope)%20FORMAT%20TSV",
                                          b"1\n", conn=self.conn), 500, 16)
        hundred = months[:months.index(b"2008-05-01")]  # 100 months: within the limit
        status, _, body = self.request("POST", "/?query=INSERT%20INTO%20monthly%20FORMAT%20TSV", hundred,
                                       conn=self.conn)
        self.assertEqual(status, 200, body)
        self.assertEqual(self.sql("SELECT count() FROM monthly"), b"100\n")

    def test_insert_with_data_in_body(self):
        """curl-style: `INSERT … FORMAT X` and its data together in the body, no query parameter."""
        self.sql("CREATE TABLE IF NOT EXISTS curl_rows (id UInt64, s String) ENGINE = MergeTree ORDER BY id")
        self.sql("INSERT INTO curl_rows FORMAT TabSeparated\n1\ta\n2\tb\n")
        self.assertEqual(self.sql("SELECT sum(id), groupArray(s) FROM curl_rows"), b"3\t['a','b']\n")

    def test_the_log_line_tells_waiting_from_running_and_what_an_insert_carried(self):
        self.sql("CREATE TABLE IF NOT EXISTS logged (id UInt64, name String) ENGINE = MergeTree ORDER BY id")
        raw = rowbinary((i, b"y" * 100) for i in range(2000))
        path = "/?query=INSERT%20INTO%20logged(id,%20name)%20FORMAT%20RowBinary&decompress=1"
        st, _, body = self.request("POST", path, native_lz4_block(raw), conn=self.conn)
        self.assertEqual((st, body), (200, b""))
        self.sql("SELECT count() FROM logged")
        # Each line is written once its answer is out, so it can trail the reply by a moment.
        deadline = time.monotonic() + 10
        while True:
            lines = open(self.log).read().splitlines()
            inserts = [line for line in lines if "INSERT INTO logged" in line]
            if inserts and any("SELECT count() FROM logged" in line for line in lines):
                break
            self.assertLess(time.monotonic(), deadline, lines[-5:])
            time.sleep(0.01)
        fields = r"POST 200 [\d.]+ms wait [\d.]+ms run [\d.]+ms"
        self.assertRegex(inserts[-1], fields + rf" rows 2000 in {len(raw) / 1e6:.1f}MB"
                         r" INSERT INTO logged \(2 columns\) FORMAT RowBinary$")
        select = next(line for line in reversed(lines) if "SELECT count() FROM logged" in line)
        self.assertRegex(select, fields + " SELECT count\\(\\) FROM logged$")

    def test_malformed_chunked_body(self):
        self.sql("CREATE TABLE IF NOT EXISTS chunky (x UInt8) ENGINE = MergeTree ORDER BY x")
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as s:
            s.sendall(b"POST /?query=INSERT%20INTO%20chunky%20FORMAT%20RowBinary HTTP/1.1\r\nHost: x\r\n"
                      b"Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n")
            reply = b""
            while chunk := s.recv(65536):  # the front answers, then closes: its framing is lost
                reply += chunk
        head, _, body = reply.partition(b"\r\n\r\n")
        self.assertIn(b"X-ClickHouse-Exception-Code: 33", head)
        self.assertIn(b"Connection: close", head)
        self.assertTrue(body.startswith(b"Code: 33. DB::Exception:"), body)


TABLES = ("events_full", "traces", "observations", "scores")


def read(*tables):
    return Ticket(words=frozenset(tables))


def write(table, size=0):
    return Ticket(urgent=True, writes=frozenset([table]), size=size)


class SchedLockTest(unittest.TestCase):
    """The order in which the front's one lock is granted to waiting statements."""

    def wait_until(self, cond, what):
        deadline = time.monotonic() + 10
        while not cond():
            if time.monotonic() > deadline:
                self.fail(f"timed out waiting for {what}")
            time.sleep(0.001)

    def run_waiters(self, lock, waiters, holder=None):
        """Hold the lock as `holder`, queue `waiters` ((name, ticket), in this order), release; the order they
        got it in. A bare bool stands for a statement on table `t`: a write into it, or a read of it."""
        order, threads = [], []

        def take(name, ticket):
            with lock.hold(ticket):
                order.append(name)

        lock.acquire(holder)
        for name, ticket in waiters:
            if isinstance(ticket, bool):
                ticket = write("t") if ticket else read("t")
            n = len(lock.waiting[0]) + len(lock.waiting[1])
            t = threading.Thread(target=take, args=(name, ticket))
            t.start()
            threads.append(t)
            self.wait_until(lambda: len(lock.waiting[0]) + len(lock.waiting[1]) == n + 1, f"{name} to queue")
        lock.release()
        for t in threads:
            t.join(10)
        self.assertEqual(len(order), len(waiters))
        return order

    def test_a_waiting_insert_goes_before_queued_selects(self):
        order = self.run_waiters(SchedLock(), [("s1", False), ("s2", False), ("s3", False), ("insert", True)])
        self.assertEqual(order, ["insert", "s1", "s2", "s3"])

    def test_each_class_is_first_come_first_served(self):
        order = self.run_waiters(SchedLock(), [("s1", False), ("w1", True), ("s2", False), ("w2", True)])
        self.assertEqual(order, ["w1", "w2", "s1", "s2"])

    def test_a_read_is_not_starved_by_a_burst_of_writes(self):
        writes = [(f"w{i}", True) for i in range(READ_PASSED + 3)]
        order = self.run_waiters(SchedLock(), [("s1", False)] + writes)
        self.assertEqual(order.index("s1"), READ_PASSED)
        self.assertEqual([n for n in order if n != "s1"], [n for n, _ in writes])

    def test_the_smallest_waiting_write_goes_first(self):
        waiters = [("events", write("events_full", 69)), ("observations", write("observations", 36)),
                   ("alter", Ticket(urgent=True, writes=None, size=UNKNOWN_SIZE)), ("traces", write("traces", 19)),
                   ("merge read", Ticket(urgent=True)), ("scores", write("scores", 27)),
                   ("traces again", write("traces", 19))]
        order = self.run_waiters(SchedLock(), waiters, holder=write("events_full", 69))
        self.assertEqual(order, ["merge read", "traces", "traces again", "scores", "observations", "events", "alter"])

    def test_a_large_write_is_not_starved_by_small_ones(self):
        smalls = [(f"w{i}", write("traces", 19)) for i in range(URGENT_PASSED + 3)]
        order = self.run_waiters(SchedLock(), [("events", write("events_full", 69))] + smalls)
        self.assertEqual(order.index("events"), URGENT_PASSED)
        self.assertEqual([n for n in order if n != "events"], [n for n, _ in smalls])

    def test_a_read_that_waited_out_a_write_skips_writes_to_tables_it_does_not_name(self):
        # A flush: its events insert holds the lock, its other inserts wait, and so do two polls.
        waiters = [("read events", read("events_full")), ("insert traces", write("traces")),
                   ("merge read", Ticket(urgent=True)), ("read trace", read("traces", "observations")),
                   ("insert observations", write("observations"))]
        order = self.run_waiters(SchedLock(), waiters, holder=write("events_full"))
        self.assertEqual(order, ["read events", "insert traces", "merge read", "insert observations", "read trace"])

    def test_a_read_keeps_its_place_when_no_write_ran_while_it_waited(self):
        for holder in (None, Ticket(urgent=True)):  # a plain read, a priority read
            waiters = [("read events", read("events_full")), ("insert traces", write("traces"))]
            order = self.run_waiters(SchedLock(), waiters, holder=holder)
            self.assertEqual(order, ["insert traces", "read events"])

    def test_a_waiting_statement_of_unknown_reach_holds_every_read_back(self):
        waiters = [("read a", read("a")), ("alter", Ticket(urgent=True, writes=None))]
        order = self.run_waiters(SchedLock(), waiters, holder=write("b"))
        self.assertEqual(order, ["alter", "read a"])

    def test_an_arrival_makes_no_other_waiter_next(self):
        # Arrivals notify nobody (only `release` does), so if one made a sleeping waiter next, nobody
        # would wake it: every statement would wait forever. Checked over many random queues.
        rng = random.Random(17)

        def ticket():
            kind = rng.random()
            if kind < 0.45:
                t = read(*rng.sample(TABLES, rng.randint(1, 2)))
                t.fresh = rng.random() < 0.3
                return t
            if kind < 0.8:
                return write(rng.choice(TABLES), rng.choice((19, 27, 36, 69)))
            return Ticket(urgent=True, writes=None, size=UNKNOWN_SIZE) if kind < 0.9 else Ticket(urgent=True)

        for _ in range(5000):
            lock = SchedLock()
            lock.passed = rng.randint(0, READ_PASSED + 1)
            for t in (ticket() for _ in range(rng.randint(1, 6))):
                t.passed = rng.randint(0, URGENT_PASSED + 1) if t.urgent else 0
                lock.waiting[0 if t.urgent else 1].append(t)
            before = lock._next()
            newcomer = ticket()
            newcomer.fresh = False
            lock.waiting[0 if newcomer.urgent else 1].append(newcomer)
            self.assertIn(lock._next(), (before, newcomer))

    def test_many_statements_at_once_all_get_the_lock(self):
        lock, rng, done = SchedLock(), random.Random(5), []

        def run(seed):
            r = random.Random(seed)
            for _ in range(200):
                kind = r.random()
                t = (read(*r.sample(TABLES, 2)) if kind < 0.5 else write(r.choice(TABLES), r.randint(1, 70)) if kind < 0.8
                     else Ticket(urgent=True) if kind < 0.9 else Ticket(urgent=True, writes=None))
                with lock.hold(t):
                    time.sleep(r.random() * 0.0003)
                done.append(1)

        threads = [threading.Thread(target=run, args=(rng.random(),), daemon=True) for _ in range(24)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        self.assertEqual(len(done), 24 * 200, "some statements never got the lock")

    def test_tickets(self):
        t = ticket_for(b"INSERT INTO `loupe`.`events_full` (`a`, `b`) FORMAT RowBinary", {})
        self.assertEqual((t.urgent, t.writes, t.size), (True, frozenset(["events_full"]), 2))
        self.assertEqual(ticket_for(b"INSERT INTO `scores`(`a`,`b`,`c`) FORMAT RowBinary", {}).size, 3)
        self.assertEqual(ticket_for(b"INSERT INTO t SELECT * FROM u", {}).size, UNKNOWN_SIZE)
        self.assertEqual(ticket_for(b"INSERT INTO t VALUES (1, 2, 3)", {}).size, UNKNOWN_SIZE)
        self.assertEqual(ticket_for(b"ALTER TABLE t DELETE WHERE 1", {}).size, UNKNOWN_SIZE)
        self.assertEqual(ticket_for(b"insert into Scores FORMAT RowBinary", {}).writes, frozenset(["scores"]))
        for sql in (b"ALTER TABLE t DELETE WHERE 1", b"CREATE TABLE x (a Int8)", b"OPTIMIZE TABLE t FINAL"):
            self.assertIsNone(ticket_for(sql, {}).writes, sql)
        merge = ticket_for(b"SELECT 1 FROM traces", {"priority": "1"})
        self.assertEqual((merge.urgent, merge.writes), (True, frozenset()))
        poll = ticket_for(b"SELECT id FROM Events_Core WHERE trace_id = {t:String}", {})
        self.assertFalse(poll.urgent)
        self.assertTrue({"events_core", "trace_id", "select"} <= poll.words)

    def test_what_counts_as_urgent(self):
        for sql in (b"INSERT INTO t FORMAT RowBinary", b"  alter table t delete where 1", b"CREATE TABLE x (a Int8)",
                    b"DROP TABLE x", b"OPTIMIZE TABLE t FINAL", b"SYSTEM FLUSH LOGS"):
            self.assertTrue(urgent(sql, {}), sql)
        for sql in (b"SELECT 1", b"WITH 1 AS x SELECT x", b"SHOW TABLES", b"EXISTS TABLE t", b"SELECT 'INSERT'"):
            self.assertFalse(urgent(sql, {}), sql)
        self.assertTrue(urgent(b"SELECT 1", {"priority": "1"}))
        self.assertFalse(urgent(b"SELECT 1", {"priority": "0"}))
        self.assertFalse(urgent(b"SELECT 1", {"priority": "high"}))  # chdb itself refuses the value


if __name__ == "__main__":
    unittest.main()
