"""chfront's sessions on the engine.

chdb hosts one engine per process, bound to one data directory; any number of sessions may be open on it, and
statements on different sessions run side by side, as a server runs its clients' queries. A session runs one
statement at a time and keeps its own current database and settings, so each request takes a whole session
for itself (`Sessions.hold`) and gives it back when its answer is ready.
"""
import threading
import time


class Sessions:
    """Up to `size` chdb sessions on one data directory, opened as they are needed (about 1 ms each) and kept
    for the next request. A request that finds all of them busy waits for one."""

    def __init__(self, open_session, size):
        self.open_session, self.size = open_session, size
        self.cond = threading.Condition(threading.Lock())
        self.idle = [open_session()]  # the first one now: a data directory chdb cannot open fails at start-up
        self.opened = 1

    def take(self):
        with self.cond:
            while not self.idle and self.opened >= self.size:
                self.cond.wait()
            if self.idle:
                return self.idle.pop()
            self.opened += 1
        try:  # outside the lock: the others need not wait for it
            return self.open_session()
        except BaseException:
            with self.cond:
                self.opened -= 1
                self.cond.notify()
            raise

    def give(self, engine):
        with self.cond:
            self.idle.append(engine)
            self.cond.notify()

    def hold(self):
        return Hold(self)

    def close(self):
        """Waits for the statements in flight to end, then closes every session; none is opened after."""
        with self.cond:
            while len(self.idle) < self.opened:
                self.cond.wait()
            for engine in self.idle:
                engine.session.close()
            self.idle, self.size = [], 0


class Hold:
    """One request's session, timed: how long the request waited for one (`waited`) and held it (`held`)."""

    def __init__(self, sessions):
        self.sessions, self.engine = sessions, None
        self.waited = self.held = self.t = 0.0

    def __enter__(self):
        t0 = time.perf_counter()
        self.engine = self.sessions.take()
        self.t = time.perf_counter()
        self.waited = self.t - t0
        return self.engine

    def __exit__(self, *exc):
        self.held = time.perf_counter() - self.t
        self.sessions.give(self.engine)
