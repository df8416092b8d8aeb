"""Waiting for what a real client sent to become readable: poll with a deadline, never sleep-and-hope."""
import sys
import time


def until(what, read, done, seconds=60):
    """Polls `read` until `done(result)`; exits the script with the last read after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        result = read()
        if done(result):
            return result
        if time.monotonic() > deadline:
            sys.exit(f"{what}: not there after {seconds}s; last read: {result}")
        time.sleep(0.2)
