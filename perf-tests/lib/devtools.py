"""Headless Chromium driven over the DevTools protocol on a pipe
(--remote-debugging-pipe: commands on its fd 3, replies and events on its fd 4,
each a JSON message ending in a NUL byte), with python3's standard library
only. Used by the browser test (tests/parse/html_browser_zoom.py) and by
html-report-bench.sh (page_timing.py).
"""
import fcntl
import json
import os
import select
import subprocess
import time


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


class Browser:
    """Headless Chromium with the DevTools protocol on its fds 3 (in) and 4 (out)."""

    def __init__(self, profile, log):
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()
        # Out of the way of 3 and 4, so the child's dup2 cannot clobber them.
        high_r = fcntl.fcntl(to_child_r, fcntl.F_DUPFD_CLOEXEC, 10)
        high_w = fcntl.fcntl(from_child_w, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(to_child_r)
        os.close(from_child_w)
        net = ["unshare", "-n"] if subprocess.run(
            ["unshare", "-n", "true"], stderr=subprocess.DEVNULL).returncode == 0 else []
        self.proc = subprocess.Popen(
            net + ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                   "--user-data-dir=" + profile, "--remote-debugging-pipe",
                   "--window-size=1366,900", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, close_fds=False,
            preexec_fn=lambda: (os.dup2(high_r, 3), os.dup2(high_w, 4)))
        os.close(high_r)
        os.close(high_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def close(self):
        try:
            self.call("Browser.close", session=False, timeout=5)
        except Failure:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            check(left > 0, "chromium did not answer within the time allowed")
            ready, _, _ = select.select([self.from_child], [], [], left)
            if ready:
                chunk = os.read(self.from_child, 1 << 20)
                check(chunk, "chromium closed its DevTools pipe (exit %s)" % self.proc.poll())
                self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=True, timeout=30):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self.to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                check("error" not in reply, "%s: %s" % (method, reply.get("error")))
                return reply["result"]
            self.events.append(reply)

    def wait_event(self, method, timeout=30):
        deadline = time.monotonic() + timeout
        for i, e in enumerate(self.events):
            if e.get("method") == method:
                return self.events.pop(i)
        while True:
            e = self._read_message(deadline)
            if e.get("method") == method:
                return e
            self.events.append(e)

    def open_page(self):
        target = self.call("Target.createTarget", {"url": "about:blank"}, session=False)
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": target["targetId"], "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(domain + ".enable")
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": 1366, "height": 900, "deviceScaleFactor": 1, "mobile": False})

    def load(self, path):
        self.events = [e for e in self.events if e.get("method") != "Page.loadEventFired"]
        self.call("Page.navigate", {"url": "file://" + os.path.abspath(path)})
        self.wait_event("Page.loadEventFired", timeout=60)

    def js(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        check("exceptionDetails" not in result,
              "script error in %r: %s" % (expression[:60], result.get("exceptionDetails")))
        return result["result"].get("value")

    def mouse(self, kind, x, y, buttons=0, clicks=0):
        params = {"type": kind, "x": x, "y": y, "buttons": buttons}
        if kind != "mouseMoved":
            params.update(button="left", clickCount=clicks)
        self.call("Input.dispatchMouseEvent", params)

    def drag(self, x0, x1, y):
        self.mouse("mouseMoved", x0, y)
        self.mouse("mousePressed", x0, y, buttons=1, clicks=1)
        for k in range(1, 6):
            self.mouse("mouseMoved", x0 + (x1 - x0) * k / 5, y, buttons=1)
        self.mouse("mouseReleased", x1, y, clicks=1)

    def double_click(self, x, y):
        self.mouse("mouseMoved", x, y)
        for clicks in (1, 2):
            self.mouse("mousePressed", x, y, buttons=1, clicks=clicks)
            self.mouse("mouseReleased", x, y, clicks=clicks)

    def console_messages(self):
        """Console calls, exceptions and log entries so far (the page should make none)."""
        self.call("Runtime.evaluate", {"expression": "0"})  # flush pending events
        out = []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.consoleAPICalled":
                out.append("console.%s: %s" % (p.get("type"), [a.get("value") for a in p.get("args", [])]))
            elif m == "Runtime.exceptionThrown":
                out.append("exception: %s" % p.get("exceptionDetails", {}).get("text"))
            elif m == "Log.entryAdded":
                out.append("log %s: %s" % (p["entry"].get("level"), p["entry"].get("text")))
        return out
