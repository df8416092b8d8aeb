"""Wire-level helpers for chfront: request bodies, ClickHouse compressed blocks, multipart forms, errors."""
import json
import re
import struct

import lz4.block

MAX_BLOCK = 1 << 30  # ClickHouse refuses compressed blocks above 1 GiB too


class ChError(Exception):
    """An error to answer the way ClickHouse does: `Code: N. DB::Exception: …` plus the code header."""

    def __init__(self, code, message="", name="", raw=None):
        super().__init__(raw or message)
        self.code = code
        self.body = raw.rstrip("\n") if raw else f"Code: {code}. DB::Exception: {message}. ({name or 'UNKNOWN'})"

    def text(self):
        return self.body + "\n"


def broken(what):
    return ChError(33, f"Cannot read all data: {what}", "CANNOT_READ_ALL_DATA")


class Body:
    """A request body read as it arrives, by Content-Length or chunked transfer (http.server does neither)."""

    def __init__(self, rfile, headers):
        self.rfile = rfile
        self.chunked = "chunked" in (headers.get("Transfer-Encoding") or "").lower()
        try:
            self.left = 0 if self.chunked else int(headers.get("Content-Length") or 0)
        except ValueError:
            raise broken("bad Content-Length") from None
        self.done = self.left == 0 and not self.chunked
        self.crlf = False  # chunked: the CRLF closing the current chunk is still unread

    def _next_chunk(self):
        if self.crlf and self.rfile.readline(3) not in (b"\r\n", b"\n"):
            raise broken("malformed chunked encoding")
        line = self.rfile.readline(1024)
        if not line:
            raise ConnectionError("client closed the connection mid-body")
        try:
            size = int(line.split(b";", 1)[0], 16)
        except ValueError:
            raise broken("malformed chunk size") from None
        if size == 0:
            while self.rfile.readline(65536) not in (b"\r\n", b"\n", b""):
                pass  # trailers
            self.done, self.crlf = True, False
        else:
            self.left, self.crlf = size, True

    def read(self, n):
        """Up to n bytes, b'' at the end of the body. Reads straight from the socket buffer: no extra copy."""
        while self.left == 0:
            if self.done:
                return b""
            self._next_chunk()
        data = self.rfile.read(min(n, self.left))
        if not data:
            raise ConnectionError("client closed the connection mid-body")
        self.left -= len(data)
        if self.left == 0 and not self.chunked:
            self.done = True
        return data

    def read_exact(self, n, eof_ok=False):
        data = self.read(n)
        if not data and eof_ok:
            return b""
        if len(data) == n:
            return data
        parts, got = [data], len(data)
        while got < n:
            more = self.read(n - got)
            if not more:
                raise broken(f"body ended {n - got} bytes early")
            parts.append(more)
            got += len(more)
        return b"".join(parts)

    def pieces(self, size=1 << 20):
        while True:
            data = self.read(size)
            if not data:
                return
            yield data

    def read_all(self):
        if not self.chunked:
            return self.read_exact(self.left, eof_ok=True)
        return b"".join(self.pieces())

    def discard(self, limit):
        """Skip the rest of the body; False if more than `limit` bytes were left."""
        while limit > 0:
            data = self.read(min(limit, 1 << 20))
            if not data:
                return True
            limit -= len(data)
        return self.done and self.left == 0


def compressed_blocks(body):
    """Decode ClickHouse's native compressed blocks (what `decompress=1` means) and yield the raw bytes.

    Block: 16-byte CityHash128 checksum, method byte, u32 LE size of header+payload (the 9 bytes from the
    method byte on), u32 LE uncompressed size, payload. The checksum is not verified: TCP already guards the
    loopback, and CityHash128 v1.0.2 is not in the stdlib.
    """
    while True:
        head = body.read_exact(25, eof_ok=True)
        if not head:
            return
        method = head[16]
        csize, usize = struct.unpack_from("<II", head, 17)
        if csize < 9 or csize - 9 > MAX_BLOCK or usize > MAX_BLOCK:
            raise ChError(271, f"Invalid compressed block sizes {csize}/{usize}", "CANNOT_DECOMPRESS")
        payload = body.read_exact(csize - 9)
        if method == 0x82:
            try:
                data = lz4.block.decompress(payload, uncompressed_size=usize)
            except lz4.block.LZ4BlockError as e:
                raise ChError(271, f"Cannot decompress LZ4 block: {e}", "CANNOT_DECOMPRESS") from None
            yield data
        elif method == 0x02:
            yield payload
        else:
            raise ChError(89, f"Unknown compression method: {method:#x}", "UNKNOWN_COMPRESSION_METHOD")


def summary(res):
    """X-ClickHouse-Summary from a chdb query result (inserts too are statements, `INSERT … FROM INFILE`)."""
    return json.dumps({"read_rows": str(res.rows_read()), "read_bytes": str(res.bytes_read()),
                       "written_rows": str(res.rows_written()), "written_bytes": str(res.bytes_written()),
                       "elapsed_ns": str(int(res.elapsed() * 1e9))}, separators=(",", ":"))


# A server's `http_max_field_value_size` default (a server-profile setting: a query cannot raise it).
MAX_FIELD_VALUE = 128 * 1024


def parse_multipart(raw, boundary):
    """Form fields of a multipart/form-data body (the crate puts `query` and `param_*` there)."""
    if not boundary:
        raise ChError(36, "multipart/form-data without a boundary", "BAD_ARGUMENTS")
    fields = {}
    for part in raw.split(b"--" + boundary.encode())[1:]:
        if part.startswith(b"--"):
            break
        headers, sep, content = part.partition(b"\r\n\r\n")
        name = re.search(rb'\bname="([^"]*)"', headers)
        if not sep or not name or b"filename=" in headers:
            continue  # files would be external tables, which the front does not offer
        value = content[:-2] if content.endswith(b"\r\n") else content
        # A server's HTMLForm::readMultipart checks the size before appending each byte, so a value
        # one byte over the limit still passes and the next byte fails.
        if len(value) > MAX_FIELD_VALUE + 1:
            raise ChError(1000, "HTML Form Exception: Field value too long", "POCO_EXCEPTION")
        fields[name.group(1).decode()] = value.decode()
    return fields


CODE_RE = re.compile(r"Code: (\d+)\. ")


def error_from_chdb(e):
    """chdb errors already carry ClickHouse's text, sometimes behind a wrapper's prefix: cut from `Code:`."""
    if isinstance(e, ChError):
        return e
    msg = str(e)
    m = CODE_RE.search(msg)
    if m:
        return ChError(int(m.group(1)), raw=msg[m.start():])
    return ChError(1001, f"{type(e).__name__}: {msg}", "STD_EXCEPTION")


# ClickHouse's exceptionCodeToHTTPStatus, with the error names resolved to numbers by chdb 26.9's
# errorCodeToName().
_STATUS = {194: 401, 229: 413, 48: 501, 381: 411, 159: 408, 779: 415}
_STATUS.update(dict.fromkeys((192, 193, 497, 512, 516), 403))
_STATUS.update(dict.fromkeys((6, 8, 15, 25, 26, 27, 36, 37, 38, 41, 44, 53, 62, 72, 117, 123, 167, 168, 223, 321,
                              376, 427, 441, 675, 676), 400))
_STATUS.update(dict.fromkeys((46, 47, 50, 56, 60, 63, 73, 78, 81, 115, 152, 336, 511), 404))
_STATUS.update(dict.fromkeys((76, 209, 439), 503))


def http_status(code):
    return _STATUS.get(code, 500)


def quote_literal(value):
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def quote_ident(name):
    return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"
