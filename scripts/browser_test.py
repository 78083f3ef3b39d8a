#!/usr/bin/env python3
"""The live page in headless Chromium: it loads, a ride is booked by clicking the map and the
Book button as a person would, the booked cab is seen moving, and a screenshot is saved.

Usage: browser_test.py WAYFARE_BINARY OUT_DIR
Starts `wayfare demo --serve` on a free port, drives Chromium over the DevTools protocol on a
pipe (--remote-debugging-pipe: no websocket library needed), and stops both. Exits 0 when
every step passed; otherwise prints the step that failed.
"""
import base64, json, os, re, signal, subprocess, sys, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from files import write_whole  # noqa: E402

wayfare, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
demo = subprocess.Popen([wayfare, "demo", "--serve", "--minutes", "5", "--cabs", "20", "--out-dir", out, "--port", "0"],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
browser = None


def fail(message):
    print("browser test: FAILED: " + message, file=sys.stderr)
    if browser:
        browser.kill()
    demo.kill()
    sys.exit(1)


url = None
deadline = time.time() + 300
while url is None and time.time() < deadline:
    line = demo.stderr.readline()
    if not line:
        fail("wayfare demo --serve ended before serving: exit %s" % demo.poll())
    match = re.search(r"serving (http://127\.0\.0\.1:\d+)", line)
    if match:
        url = match.group(1)
if url is None:
    fail("wayfare demo --serve did not serve within 300 s")
print("browser test: demo serving " + url)

chromium = os.environ.get("CHROMIUM", "chromium")
to_chrome_r, to_chrome_w = os.pipe()
from_chrome_r, from_chrome_w = os.pipe()
os.set_inheritable(to_chrome_r, True)
os.set_inheritable(from_chrome_w, True)
# Chromium reads commands on fd 3 and writes answers on fd 4. Its scratch files (the
# profile, and the lock folder it would otherwise make in /tmp) go under OUT_DIR.
scratch = os.path.join(out, "chromium-tmp")
os.makedirs(scratch, exist_ok=True)
browser = subprocess.Popen(
    [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
     "--remote-debugging-pipe", "--window-size=1400,900", "--user-data-dir=" + os.path.join(out, "chromium-profile"), "about:blank"],
    pass_fds=(3, 4), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ, TMPDIR=scratch),
    preexec_fn=lambda: (os.dup2(to_chrome_r, 3), os.dup2(from_chrome_w, 4)))
os.close(to_chrome_r)
os.close(from_chrome_w)
reader = os.fdopen(from_chrome_r, "rb", buffering=0)
next_id = 0
buffer = b""


def send(method, params=None, session=None):
    global next_id, buffer
    next_id += 1
    message = {"id": next_id, "method": method, "params": params or {}}
    if session:
        message["sessionId"] = session
    os.write(to_chrome_w, json.dumps(message).encode() + b"\0")
    while True:
        while b"\0" not in buffer:
            chunk = reader.read(1 << 20)
            if not chunk:
                fail("Chromium closed the pipe during " + method)
            buffer += chunk
        raw, buffer = buffer.split(b"\0", 1)
        answer = json.loads(raw)
        if answer.get("id") == next_id:
            if "error" in answer:
                fail(method + ": " + json.dumps(answer["error"]))
            return answer.get("result", {})


target = send("Target.createTarget", {"url": url + "/"})["targetId"]
session = send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]


def evaluate(expression):
    result = send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}, session)
    if "exceptionDetails" in result:
        fail("page error in " + expression + ": " + json.dumps(result["exceptionDetails"])[:400])
    return result["result"].get("value")


def wait_for(expression, seconds, what):
    end = time.time() + seconds
    while time.time() < end:
        if evaluate(expression):
            return
        error = evaluate("window.wayfare && window.wayfare.error")
        if error:
            fail(what + ": the page says: " + error)
        time.sleep(0.5)
    fail(what + ": not within %d s; the page says: %s" % (seconds, evaluate("document.getElementById('status').textContent")))


def click(x, y):
    for kind in ("mousePressed", "mouseReleased"):
        send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}, session)


wait_for("window.wayfare && window.wayfare.ready", 30, "the map loads")
print("browser test: the map loaded: %s zones and streets drawn" % evaluate("document.querySelectorAll('#zones path').length"))
wait_for("document.querySelectorAll('#cabs circle').length > 0", 20, "cabs appear")
for lat, lon in ((43.7393, 7.4277), (43.7314, 7.4197)):  # the Casino, then the Prince's Palace
    p = evaluate("window.wayfareScreenPoint(%f, %f)" % (lat, lon))
    click(p["x"], p["y"])
    time.sleep(0.3)
wait_for("!document.getElementById('book').disabled", 20, "a route is drawn between the clicked points")
print("browser test: route: " + evaluate("document.getElementById('trip').textContent"))
offered = evaluate("window.wayfare.routesOffered") or 0
print("browser test: %d route(s) offered" % offered)
if offered < 2:
    fail("the Casino to the Prince's Palace should offer an alternative route")
second = evaluate("(() => { const r = document.querySelectorAll('#choices button')[1].getBoundingClientRect(); return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()")
click(second["x"], second["y"])
wait_for("document.querySelectorAll('#choices button')[1].textContent.includes('\u2713')", 10, "the second route is picked")
print("browser test: picked: " + evaluate("document.getElementById('trip').textContent"))
box = evaluate("(() => { const r = document.getElementById('book').getBoundingClientRect(); return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()")
click(box["x"], box["y"])
wait_for("window.wayfare.booked", 30, "the booking is made")
print("browser test: booked: " + evaluate("document.getElementById('status').textContent"))
if evaluate("window.wayfare.bookedRoute") != 1:
    fail("the booking does not name the route picked: %s" % evaluate("window.wayfare.bookedRoute"))
wait_for("window.wayfare.cabMoved", 120, "the booked cab is seen moving")
print("browser test: the cab moves: " + evaluate("document.getElementById('status').textContent"))
shot = send("Page.captureScreenshot", {"format": "png"}, session)["data"]
path = os.path.join(out, "page.png")
write_whole(path, base64.b64decode(shot))
print("browser test: screenshot " + path)

# Asked to stop (SIGTERM), and killed only if it does not.
browser.terminate()
try:
    browser.wait(timeout=30)
except subprocess.TimeoutExpired:
    browser.kill()
demo.send_signal(signal.SIGINT)
try:
    demo.wait(timeout=60)
except subprocess.TimeoutExpired:
    fail("wayfare demo did not stop within 60 s of SIGINT")
if demo.returncode != 0:
    fail("wayfare demo exited %d after SIGINT: %s" % (demo.returncode, demo.stderr.read()[-500:]))
print("browser test: passed")
