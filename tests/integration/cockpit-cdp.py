#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Drives a headless Chromium over its DevTools protocol for the Cockpit page tests: one command per
# call, against the page of the browser listening on PORT (each call connects anew, so a shell
# script can change the host between two calls while the page stays loaded).
#   cockpit-cdp.py PORT navigate URL
#   cockpit-cdp.py PORT eval EXPRESSION               prints the value (JSON for objects)
#   cockpit-cdp.py PORT wait EXPRESSION TIMEOUT       polls until the expression is truthy, prints it
#   cockpit-cdp.py PORT screenshot FILE.png          the first 1200x900 pixels
# wait polls every 20 ms: it bounds how long to wait, it does not time anything.
import base64
import json
import sys
import time
import urllib.request

import websocket


def page_socket(port):
    for _ in range(200):
        try:
            targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json", timeout=2))
            pages = [t for t in targets if t.get("type") == "page"]
            if pages:
                return websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=30,
                                                   suppress_origin=True)
        except OSError:
            pass
        time.sleep(0.05)
    sys.exit(f"cockpit-cdp: no page on the DevTools port {port}")


class Page:
    def __init__(self, port):
        self.ws = page_socket(port)
        self.next_id = 0

    def send(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    sys.exit(f"cockpit-cdp: {method}: {msg['error']}")
                return msg["result"]

    def eval(self, expression):
        r = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in r:
            return None, r["exceptionDetails"].get("text", "exception")
        return r["result"].get("value"), None


def show(value):
    print(value if isinstance(value, str) else json.dumps(value))


def main():
    port, command, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    page = Page(port)
    if command == "navigate":
        page.send("Page.navigate", url=args[0])
    elif command == "eval":
        value, error = page.eval(args[0])
        if error:
            sys.exit(f"cockpit-cdp: {args[0]}: {error}")
        show(value)
    elif command == "wait":
        deadline = time.monotonic() + float(args[1])
        while True:
            value, error = page.eval(args[0])
            if value and not error:
                show(value)
                return
            if time.monotonic() > deadline:
                sys.exit(f"cockpit-cdp: timed out after {args[1]} s waiting for {args[0]} (last: {error or value!r})")
            time.sleep(0.02)
    elif command == "screenshot":
        page.send("Emulation.setDeviceMetricsOverride", width=1200, height=900, deviceScaleFactor=1, mobile=False)
        shot = page.send("Page.captureScreenshot", format="png")
        with open(args[0], "wb") as f:
            f.write(base64.b64decode(shot["data"]))
    else:
        sys.exit(f"cockpit-cdp: unknown command {command}")


if __name__ == "__main__":
    main()
