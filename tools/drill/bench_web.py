"""What the read and trace benches share: a database pair of their own on the dev stack, a release
`web` started on it with a first user and project, signed in, and its peak memory."""
import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request

from drill import wait_for


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class BenchWeb:
    """`name` prefixes errors; `database` names the ClickHouse and the PostgreSQL database alike."""

    def __init__(self, name, env_file, database, bin_dir):
        self.name, self.database, self.bin_dir = name, database, bin_dir
        self.env = dict(line.split("=", 1) for line in open(env_file).read().split("\n") if "=" in line)
        self.web = None
        self.port = None
        self.cookie = None

    def fail(self, message):
        raise SystemExit(f"{self.name}: {message}")

    def ch(self, sql, timeout=900):
        url = f"{self.env['CLICKHOUSE_URL']}/?database={self.database}"
        request = urllib.request.Request(url, data=sql.encode(), method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.read().decode().strip()
        except urllib.error.HTTPError as error:
            self.fail(f"ClickHouse refused ({error.code}): {error.read().decode()[:2000]}\n{sql[:500]}")

    def postgres_url(self):
        """A PostgreSQL database of its own, like ClickHouse's: the dev database's keys belong to
        other benches' projects, and the bootstrap refuses to move a key."""
        server, name = self.env["DATABASE_URL"].rsplit("/", 1)[0], self.database
        psql = lambda sql: subprocess.run(["psql", f"{server}/postgres", "-qtAc", sql], check=True,
                                          capture_output=True, text=True).stdout.strip()
        if psql(f"SELECT 1 FROM pg_database WHERE datname = '{name}'") != "1":
            psql(f"CREATE DATABASE {name}")
        return f"{server}/{name}"

    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self, settings):
        """Starts `web` with the dev stack's settings, its own databases and `settings` (the first
        user, project and write mode), and waits until it answers. The web creates the ClickHouse
        database and runs the migrations, so start it before filling anything."""
        self.port = free_port()
        env = dict(os.environ)
        env.update(self.env)
        env.update({
            "DATABASE_URL": self.postgres_url(),
            "CLICKHOUSE_DB": self.database,
            "LANGFUSE_LISTEN_ADDRESS": "127.0.0.1",
            "PORT": str(self.port),
            "LANGFUSE_OTEL_GRPC_PORT": str(free_port()),
            "SALT": "bench-salt",
            "LANGFUSE_LOG_LEVEL": "warn",
            **settings,
        })
        self.web = subprocess.Popen([os.path.join(self.bin_dir, "web")], env=env)

        def healthy():
            if self.web.poll() is not None:
                self.fail(f"web exited with {self.web.returncode}")
            try:
                with urllib.request.urlopen(f"{self.base()}/api/public/health", timeout=2) as r:
                    return r.status == 200
            except OSError:
                return False

        wait_for("web to answer", healthy, 120)

    def sign_in(self, email, password):
        """The session cookie of `email`, for the UI's routes."""
        body = json.dumps({"email": email, "password": password}).encode()
        request = urllib.request.Request(f"{self.base()}/api/ui/auth/sign-in", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            self.cookie = response.headers["Set-Cookie"].split(";", 1)[0]
        return self.cookie

    def stop(self):
        if self.web and self.web.poll() is None:
            self.web.terminate()
            try:
                self.web.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.web.kill()

    def peak_rss_mb(self):
        for line in open(f"/proc/{self.web.pid}/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024
        return 0


def logger(name):
    return lambda message: print(f"[{name} {time.strftime('%H:%M:%S')}] {message}", flush=True)
