"""The driver's side of the worker processes (runner.py): one subprocess per library, kept running across
programs; requests written to its stdin, responses read by a thread into a queue, so a slow or dead
worker never blocks the driver. A worker that dies (a segfault) or overruns the timeout is restarted,
and the program it was running is reported as a crash or a hang."""
import json
import os
import queue
import re
import subprocess
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


class WorkerDied(Exception):
    def __init__(self, kind, detail):
        super().__init__(f"{kind}: {detail}")
        self.kind, self.detail = kind, detail


class Worker:
    def __init__(self, python, lib, log_path, env=None):
        self.python, self.lib, self.log_path = python, lib, log_path
        self.env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", **(env or {}))
        self.next_id = 0
        self.stash = {}
        self.restarts = 0
        self.proc = None
        self.start()

    def start(self):
        self.log = open(self.log_path, "a" if self.restarts else "w")
        self.proc = subprocess.Popen([self.python, os.path.join(HERE, "runner.py"), self.lib], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.log, env=self.env, text=True, bufsize=1)
        self.queue = queue.Queue()
        self.stash = {}
        threading.Thread(target=self._read, args=(self.proc, self.queue), daemon=True).start()

    @staticmethod
    def _read(proc, q):
        for line in proc.stdout:
            q.put(json.loads(line))
        q.put(None)  # end of stream: the process is gone

    def send(self, req):
        """Sends a request; its id (for recv)."""
        req = dict(req, id=self.next_id)
        self.next_id += 1
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        return req["id"]

    def recv(self, rid, timeout):
        """The response to request rid. Raises WorkerDied("crash"|"hang", detail) after restarting the
        worker: every request still outstanding is lost (the caller resends what it needs)."""
        deadline = time.monotonic() + timeout
        while rid not in self.stash:
            try:
                msg = self.queue.get(timeout=max(deadline - time.monotonic(), 0.001))
            except queue.Empty:
                self.restart()
                raise WorkerDied("hang", f"no answer in {timeout:.0f} s") from None
            if msg is None:
                code = self.proc.wait()
                detail = crash_summary(code, self.log_tail(4000))
                self.restart()
                raise WorkerDied("crash", detail)
            self.stash[msg["id"]] = msg
        return self.stash.pop(rid)

    def call(self, req, timeout):
        return self.recv(self.send(req), timeout)

    def log_tail(self, n=1500):
        try:
            with open(self.log_path) as f:
                f.seek(max(os.path.getsize(self.log_path) - n, 0))
                return f.read()
        except OSError:
            return ""

    def restart(self):
        self.stop()
        self.restarts += 1
        self.start()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.proc:
            self.proc.stdin.close()
        self.log.close()


def crash_summary(code, log):
    """"exit code -11 (Fatal Python error: Segmentation fault) in backward (interpret.py:130)": the
    signal and the innermost Python frame of faulthandler's stack in the worker's log."""
    lines = log.splitlines()
    fatal = next((ln.strip() for ln in reversed(lines) if ln.startswith("Fatal Python error")), "")
    frame = ""
    for k in range(len(lines) - 1, -1, -1):
        if "most recent call first" in lines[k]:
            m = re.match(r'\s*File "(.*)", line (\d+) in (\S+)', lines[k + 1]) if k + 1 < len(lines) else None
            if m:
                frame = f" in {m.group(3)} ({os.path.basename(m.group(1))}:{m.group(2)})"
            break
    return f"exit code {code}" + (f" ({fatal})" if fatal else "") + frame
