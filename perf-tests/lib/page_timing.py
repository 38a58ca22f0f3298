#!/usr/bin/env python3
"""page_timing.py PAGE.html: Chromium's own time for a page, without its
start-up. In one headless Chromium, loads the page three times and prints the
best of each, in ms: from navigation start to the end of the load event (the
HTML parsed, the page's script run), then a screenshot of the window right
after (style, layout, paint). Prints "LOAD_MS PAINT_MS"; a failure is one line
on stderr and exit status 1.
"""
import os
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from devtools import Browser, Failure  # noqa: E402


def main():
    page = sys.argv[1]
    with tempfile.TemporaryDirectory() as profile, open(os.devnull, "w") as log:
        b = Browser(profile, log)
        try:
            b.open_page()
            load = paint = None
            for _ in range(3):
                b.load(page)
                ms = b.js("performance.timing.loadEventEnd - performance.timing.navigationStart")
                start = time.monotonic()
                b.call("Page.captureScreenshot", {"format": "png"})
                shot = (time.monotonic() - start) * 1000
                load = ms if load is None else min(load, ms)
                paint = shot if paint is None else min(paint, shot)
        finally:
            b.close()
    print("%d %d" % (load, paint))


if __name__ == "__main__":
    try:
        main()
    except Failure as e:
        print("page_timing.py: %s" % e, file=sys.stderr)
        sys.exit(1)
