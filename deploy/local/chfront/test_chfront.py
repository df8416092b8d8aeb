"""Protocol-edge smoke test of chfront (stdlib unittest; needs the venv that has chdb and lz4).

    .local/venv/bin/python -m unittest deploy/local/chfront/test_chfront.py

Starts the front on a free port with a temporary data directory. The Rust side tests the real `clickhouse`
crate against it; this file pins down what the crate relies on (shared/reference/rust-stack.md section 3.2).
"""
import http.client
import os
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
        """20 MB of chunked body into a missing table: the front reads it all and answers Code 60, keep-alive."""
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
        st, _, body = self.request("POST", "/?query=INSERT%20INTO%20monthly%20FORMAT%20RowBinary", b"\x01\x02",
                                   conn=self.conn)
        self.assertNotIn(b"in file/uri", body)  # the spooled body's file is the front's business
        self.assertFalse(body.startswith(b"Code: 33. DB::Exception: Code: 33."), body)
        # A materialized view that throws fails the insert, as on a server.
        self.sql("CREATE TABLE IF NOT EXISTS mv_src (x UInt32) ENGINE = MergeTree ORDER BY x")
        self.sql("CREATE TABLE IF NOT EXISTS mv_dst (y UInt32) ENGINE = MergeTree ORDER BY y")
        self.sql("CREATE MATERIALIZED VIEW IF NOT EXISTS mv_throws TO mv_dst AS "
                 "SELECT throwIf(x = 7, 'seven') + x AS y FROM mv_src")
        self.assert_ch_error(self.request("POST", "/?query=INSERT%20INTO%20mv_src%20FORMAT%20TSV", b"7\n",
                                          conn=self.conn), 500, 395)
        self.assertEqual(self.sql("SELECT count() FROM mv_dst"), b"0\n")
        self.assertEqual(os.listdir(os.path.join(self.tmp, "spool")), [])  # every spooled body is gone
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

    def wait_for(self, what, cond):
        deadline = time.monotonic() + 30
        while not cond():
            self.assertLess(time.monotonic(), deadline, f"timed out waiting for {what}")
            time.sleep(0.01)

    def running(self, text):
        """Whether a statement containing `text` is running on the engine now."""
        q = f"SELECT count() FROM system.processes WHERE query LIKE '%{text}%' AND query NOT LIKE '%system.processes%'"
        return self.request("POST", "/", q.encode())[2] != b"0\n"

    def test_statements_run_side_by_side(self):
        """A slow read holds up no other client: an insert and a read beside it are answered while it runs."""
        self.sql("CREATE TABLE IF NOT EXISTS beside (id UInt64, name String) ENGINE = MergeTree ORDER BY id")
        slow = threading.Thread(target=self.request, args=("POST", "/", b"SELECT sleep(2) AS slow_read"))
        slow.start()
        self.wait_for("the slow read to start", lambda: self.running("slow_read"))
        st, _, body = self.request("POST", "/?query=INSERT%20INTO%20beside%20FORMAT%20RowBinary",
                                   rowbinary([(1, b"a")]))
        self.assertEqual((st, body), (200, b""))
        self.assertEqual(self.request("POST", "/", b"SELECT count() FROM beside")[2], b"1\n")
        self.assertTrue(slow.is_alive(), "the insert and the read waited for the slow read to end")
        slow.join(30)

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


if __name__ == "__main__":
    unittest.main()
