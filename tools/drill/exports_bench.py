#!/usr/bin/env python3
"""`just bench exports`: how fast the worker's scheduled export writes N observations to an S3 bucket
in each file type, how many bytes that makes, and the worker's peak memory (which must stay bounded
whatever N: rows are read in chunks and uploaded in 8 MiB parts).

Generates N events of project `drill` an hour and a half old straight into `events_full` of a
database of its own, saves an `OBSERVATIONS_V2` integration through the public API (an organization
key from the admin API) pointing at the stack's bucket, then for each file type (CSV, JSON, JSONL,
PARQUET; gzip where it applies) starts a fresh worker, waits until the window is recorded, and
prints rows/s, the bytes under the type's prefix (S3 ListObjectsV2, SigV4-signed here) and the
worker's peak RSS (VmHWM). The bucket's endpoint is on loopback, so web and worker run with
`LANGFUSE_OUTBOUND_ALLOWED_HOSTS` allowing it.
"""
import argparse
import base64
import datetime
import hashlib
import hmac
import os
import subprocess
import time
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ElementTree

from drill import ADMIN_KEY, Drill, http, log, wait_for

FILE_TYPES = ["CSV", "JSON", "JSONL", "PARQUET"]


def insert(bench, rows):
    # Spread over 30 minutes that ended an hour ago: inside the first window (it ends 20 min ago).
    step_ms = 30 * 60 * 1000 / rows
    bench.ch(
        "INSERT INTO events_full (project_id, trace_id, span_id, start_time, name, type, input, output, "
        "metadata_names, metadata_values, event_ts, is_deleted) "
        "SELECT 'drill', concat('tr-', toString(intDiv(number, 10))), concat('sp-', toString(number)), "
        f"now64(3) - INTERVAL 60 MINUTE - toIntervalMillisecond(toUInt64(number * {step_ms:.3f})), "
        "concat('step ', toString(number % 50)), 'GENERATION', repeat('x', 200), repeat('y', 200), "
        "['k'], [toString(number)], now64(3), 0 "
        f"FROM numbers({rows})")


def s3(env, method, key="", params=None):
    """One path-style request to the stack's bucket, SigV4-signed (no SDK in the venv)."""
    endpoint = env["LANGFUSE_S3_EVENT_UPLOAD_ENDPOINT"].rstrip("/")
    bucket, region = env["LANGFUSE_S3_EVENT_UPLOAD_BUCKET"], env["LANGFUSE_S3_EVENT_UPLOAD_REGION"]
    key_id, secret = env["LANGFUSE_S3_EVENT_UPLOAD_ACCESS_KEY_ID"], env["LANGFUSE_S3_EVENT_UPLOAD_SECRET_ACCESS_KEY"]
    host = urllib.parse.urlparse(endpoint).netloc
    path = f"/{bucket}" + (f"/{urllib.parse.quote(key, safe='/')}" if key else "")
    query = "&".join(f"{urllib.parse.quote(k, safe='')}={urllib.parse.quote(v, safe='')}"
                     for k, v in sorted((params or {}).items()))
    now = datetime.datetime.now(datetime.timezone.utc)
    amz_date, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    payload = hashlib.sha256(b"").hexdigest()
    canonical = "\n".join([method, path, query, f"host:{host}", f"x-amz-content-sha256:{payload}",
                           f"x-amz-date:{amz_date}", "", "host;x-amz-content-sha256;x-amz-date", payload])
    scope = f"{day}/{region}/s3/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    signing = f"AWS4{secret}".encode()
    for part in (day, region, "s3", "aws4_request"):
        signing = hmac.new(signing, part.encode(), hashlib.sha256).digest()
    signature = hmac.new(signing, to_sign.encode(), hashlib.sha256).hexdigest()
    request = urllib.request.Request(f"{endpoint}{path}" + (f"?{query}" if query else ""), method=method, headers={
        "x-amz-date": amz_date, "x-amz-content-sha256": payload,
        "Authorization": f"AWS4-HMAC-SHA256 Credential={key_id}/{scope}, "
                         f"SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature={signature}"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.read()


def listing(env, prefix):
    """Every object under `prefix`: (key, size)."""
    found, token = [], None
    while True:
        params = {"list-type": "2", "prefix": prefix}
        if token:
            params["continuation-token"] = token
        root = ElementTree.fromstring(s3(env, "GET", params=params))
        ns = root.tag.split("}")[0] + "}" if root.tag.startswith("{") else ""
        for item in root.findall(f"{ns}Contents"):
            found.append((item.find(f"{ns}Key").text, int(item.find(f"{ns}Size").text)))
        if root.findtext(f"{ns}IsTruncated") == "true":
            token = root.findtext(f"{ns}NextContinuationToken")
        else:
            return found


def peak_rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--env", default=".local/stack.env")
    parser.add_argument("--types", default=",".join(FILE_TYPES))
    args = parser.parse_args()
    args.chunk_rows = 20_000
    bench = Drill(args)
    bench.worker_port = 3932
    bench.web_port = 3912
    bench.create_databases()
    host = urllib.parse.urlparse(bench.env["LANGFUSE_S3_EVENT_UPLOAD_ENDPOINT"]).hostname
    extra = {"LANGFUSE_OUTBOUND_ALLOWED_HOSTS": host, "ENCRYPTION_KEY": "ab" * 32}
    try:
        bench.web = bench.start("web", "events_only", extra)
        log(f"generating {args.rows} events")
        started = time.time()
        insert(bench, args.rows)
        log(f"generated in {time.time() - started:.1f} s")
        web = f"http://127.0.0.1:{bench.web_port}"
        status, key = http("POST", f"{web}/api/admin/organizations/drill-org/apiKeys", None,
                           {"Authorization": f"Bearer {ADMIN_KEY}"})
        assert status == 201, (status, key)
        org = "Basic " + base64.b64encode(f"{key['publicKey']}:{key['secretKey']}".encode()).decode()
        route = f"{web}/api/public/integrations/blob-storage"
        print(f"{'type':<8} {'rows':>10} {'seconds':>8} {'rows/s':>10} {'objects':>7} {'bytes':>13} {'worker peak RSS':>16}")
        for file_type in args.types.split(","):
            prefix = f"{bench.stamp}/exports-bench/{file_type.lower()}/"
            http("DELETE", f"{route}/drill", None, {"Authorization": org})
            env = bench.env
            status, body = http("PUT", route, {
                "projectId": "drill", "type": "S3_COMPATIBLE", "bucketName": env["LANGFUSE_S3_EVENT_UPLOAD_BUCKET"],
                "endpoint": env["LANGFUSE_S3_EVENT_UPLOAD_ENDPOINT"], "region": env["LANGFUSE_S3_EVENT_UPLOAD_REGION"],
                "accessKeyId": env["LANGFUSE_S3_EVENT_UPLOAD_ACCESS_KEY_ID"],
                "secretAccessKey": env["LANGFUSE_S3_EVENT_UPLOAD_SECRET_ACCESS_KEY"], "prefix": prefix,
                "exportFrequency": "daily", "enabled": True, "forcePathStyle": True, "fileType": file_type,
                "exportMode": "FROM_CUSTOM_DATE", "exportSource": "OBSERVATIONS_V2", "compressed": True,
                "exportStartDate": (datetime.datetime.now(datetime.timezone.utc)
                                    - datetime.timedelta(hours=3)).isoformat()},
                {"Authorization": org})
            assert status in (200, 201), (status, body)
            started = time.time()
            bench.worker = bench.start("worker", "events_only", extra)
            wait_for(f"the {file_type} export", lambda: (http("GET", f"{route}/drill", None, {"Authorization": org})[1]
                                                         or {}).get("lastSyncAt"), 3600, every=0.5)
            seconds = time.time() - started
            peak = peak_rss_mb(bench.worker.pid)
            last = http("GET", f"{route}/drill", None, {"Authorization": org})[1]
            assert not last.get("lastError"), last
            bench.stop(bench.worker)
            files = [(k, n) for k, n in listing(env, prefix) if not k.endswith("loupe-connection-check.txt")]
            objects, size = len(files), sum(n for _, n in files)
            print(f"{file_type:<8} {args.rows:>10} {seconds:>8.1f} {args.rows / seconds:>10,.0f} {objects:>7} "
                  f"{size:>13,} {peak:>13.1f} MB", flush=True)
    finally:
        # The files are the shared bucket's: removed, whatever happened.
        for key, _ in listing(bench.env, f"{bench.stamp}/"):
            s3(bench.env, "DELETE", key)
        for process in (bench.worker, bench.web):
            if process and process.poll() is None:
                process.kill()
        bench.ch(f"DROP DATABASE {bench.stamp}")
        server = bench.base_env["DATABASE_URL"].rsplit("/", 1)[0]
        subprocess.run(["psql", f"{server}/postgres", "-qc", f"DROP DATABASE IF EXISTS {bench.stamp}"], check=False)


if __name__ == "__main__":
    os.chdir(os.path.dirname(os.path.abspath(__file__)) + "/../..")
    main()
