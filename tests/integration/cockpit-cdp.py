#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Drives a headless Chromium over its DevTools protocol for the Cockpit page tests: one command per
# call, against the page of the browser listening on PORT (each call connects anew, so a shell
# script can change the host between two calls while the page stays loaded).
#   cockpit-cdp.py PORT navigate URL
#   cockpit-cdp.py PORT eval EXPRESSION               prints the value (JSON for objects)
#   cockpit-cdp.py PORT wait EXPRESSION TIMEOUT       polls until the expression is truthy, prints it
#   cockpit-cdp.py PORT screenshot FILE.png          the first 1200x900 pixels
#   cockpit-cdp.py PORT render-time URL CONDITION TIMEOUT
#        loads URL and prints the milliseconds from the navigation's start until CONDITION held
#        (checked by a MutationObserver in the page from its first byte on, on every DOM change)
#   cockpit-cdp.py PORT watch CONDITION
#        from now on, window.ckSeen is Date.now() at the first DOM change after which CONDITION holds
# wait polls every 20 ms: it bounds how long to wait, it does not time anything; the bench's times
# come from the page's own clock (render-time, watch).
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


# Sets window.NAME to CLOCK the first time CONDITION holds after a DOM change. DevTools compiles
# it: Cockpit's Content-Security-Policy, which forbids inline scripts and eval, does not apply.
OBSERVER = """(() => {
    window.%s = null;
    const check = () => {
        try {
            if (window.%s === null && (%s))
                window.%s = %s;
        } catch (e) {}
    };
    const start = () => {
        new MutationObserver(check).observe(document.documentElement,
            { subtree: true, childList: true, characterData: true, attributes: true });
        check();
    };
    if (document.documentElement) start(); else document.addEventListener("readystatechange", start, { once: true });
})()"""


def observer(name, condition, clock):
    return OBSERVER % (name, name, condition, name, clock)


def wait_value(page, expression, timeout):
    deadline = time.monotonic() + float(timeout)
    while True:
        value, error = page.eval(expression)
        if value and not error:
            return value
        if time.monotonic() > deadline:
            sys.exit(f"cockpit-cdp: timed out after {timeout} s waiting for {expression} (last: {error or value!r})")
        time.sleep(0.02)


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
        show(wait_value(page, args[0], args[1]))
    elif command == "render-time":
        url, condition, timeout = args
        page.send("Page.enable")
        # a name of this load's own: the page before it may hold one
        name = f"ckRendered{time.monotonic_ns()}"
        script = page.send("Page.addScriptToEvaluateOnNewDocument",
                           source=observer(name, condition, "performance.now()"))["identifier"]
        page.send("Page.navigate", url=url)
        print(round(wait_value(page, "window." + name, timeout), 1))
        page.send("Page.removeScriptToEvaluateOnNewDocument", identifier=script)
    elif command == "watch":
        page.eval(observer("ckSeen", args[0], "Date.now()"))
    elif command == "screenshot":
        page.send("Emulation.setDeviceMetricsOverride", width=1200, height=900, deviceScaleFactor=1, mobile=False)
        shot = page.send("Page.captureScreenshot", format="png")
        with open(args[0], "wb") as f:
            f.write(base64.b64decode(shot["data"]))
    else:
        sys.exit(f"cockpit-cdp: unknown command {command}")


if __name__ == "__main__":
    main()
