#!/usr/bin/env python3
"""Headless Chromium over the DevTools protocol, spoken on a pipe (--remote-debugging-pipe: commands on fd 3, replies
on fd 4): loads a page at a width of 1400 px and takes pictures of it. Chromium's own --screenshot captures the
window only, and only the protocol reports the page's height and where its elements lie.
  chromium.py URL [--first-screen PNG] [--full PNG] [--on-first-screen ID...] -- CHROMIUM COMMAND...
--first-screen: the first 1000 px, as a reader opening the page sees it; --full: the page's top 16000 px (headless
Chromium refuses much taller images); --on-first-screen: fails unless each element begins on the first screen."""
import argparse, base64, fcntl, json, os, subprocess, sys

WIDTH, SCREEN = 1400, 1000
args = argparse.ArgumentParser()
args.add_argument("url")
args.add_argument("--first-screen")
args.add_argument("--full")
args.add_argument("--on-first-screen", nargs="*", default=[])
if "--" not in sys.argv: sys.exit("chromium.py: give the Chromium command after --")
split = sys.argv.index("--")
a, chrome = args.parse_args(sys.argv[1:split]), sys.argv[split + 1:]

to_chrome, from_us = os.pipe()
to_us, from_chrome = os.pipe()
def child_fds():
    # Out of the way first, so that neither dup2 overwrites the other pipe's end.
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_chrome, from_chrome)]
    os.dup2(high[0], 3)
    os.dup2(high[1], 4)
proc = subprocess.Popen(chrome + ["--remote-debugging-pipe", "about:blank"], close_fds=False, preexec_fn=child_fds,
                        stderr=subprocess.DEVNULL)
os.close(to_chrome); os.close(from_chrome)
send, receive, buffered, next_id = os.fdopen(from_us, "wb"), os.fdopen(to_us, "rb"), b"", 0

def message():
    global buffered
    while b"\0" not in buffered:
        chunk = receive.read1(1 << 20)
        if not chunk: sys.exit("chromium.py: Chromium closed the DevTools pipe")
        buffered += chunk
    one, buffered = buffered.split(b"\0", 1)
    return json.loads(one)

def call(method, session=None, until=None, **params):
    """Sends a command and returns its result; with `until`, also waits for that event, which may come first."""
    global next_id
    next_id += 1
    send.write(json.dumps({"id": next_id, "method": method, "params": params,
                           **({"sessionId": session} if session else {})}).encode() + b"\0")
    send.flush()
    result, seen = None, until is None
    while result is None or not seen:
        m = message()
        if m.get("id") == next_id:
            if "error" in m: sys.exit(f"chromium.py: {method}: {m['error']}")
            result = m["result"]
        elif m.get("method") == until:
            seen = True
    return result

def shoot(session, path, height):
    shot = call("Page.captureScreenshot", session, format="png", captureBeyondViewport=True,
                clip={"x": 0, "y": 0, "width": WIDTH, "height": height, "scale": 1})
    open(path, "wb").write(base64.b64decode(shot["data"]))

target = call("Target.createTarget", url="about:blank")["targetId"]
session = call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
call("Page.enable", session)
call("Emulation.setDeviceMetricsOverride", session, width=WIDTH, height=SCREEN, deviceScaleFactor=1, mobile=False)
call("Page.navigate", session, until="Page.loadEventFired", url=a.url)
failed = []
for id in a.on_first_screen:
    top = call("Runtime.evaluate", session, returnByValue=True,
               expression=f"(e => e ? e.getBoundingClientRect().top : null)(document.getElementById({json.dumps(id)}))")
    top = top["result"].get("value")
    if top is None or top >= SCREEN: failed.append(f"#{id} begins at {top} px, not on the first {SCREEN} px")
    else: print(f"chromium.py: #{id} begins at {top:.0f} px, on the first screen")
if a.first_screen:
    shoot(session, a.first_screen, SCREEN)
    print(f"chromium.py: first screen {a.first_screen} ({WIDTH} x {SCREEN} px)")
if a.full:
    size = call("Page.getLayoutMetrics", session)["cssContentSize"]
    height = min(size["height"], 16000)
    shoot(session, a.full, height)
    print(f"chromium.py: {a.full} ({WIDTH} x {height:.0f} px of the page's {size['height']:.0f})")
call("Browser.close")
proc.wait(timeout=30)
if failed: sys.exit("chromium.py: " + "; ".join(failed))
