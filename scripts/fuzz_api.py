#!/usr/bin/env python3
"""The boundary fuzzer: every operation of the served OpenAPI document, every field, every role,
with the values that break hand-written parsers, against a live `wayfare serve`.

    python3 scripts/fuzz_api.py WAYFARE_BINARY WORK_DIR [SECONDS]

It builds Monaco's city folder, starts `wayfare serve` on loopback (test payments and test SMS,
no rate limit, SQLite), makes an admin (`wayfare admin create`, password on stdin), a driver on
shift and a passenger, reads /openapi.json, and then, for each operation and each role
(anonymous, passenger, driver, admin), sends the operation's valid request with one field at a
time replaced by each boundary value: +-2^63, 2^63-1, 2^64, 1e308, -0.0, 1e-320, 2^53+1, empty
and longest-plus-one strings, control characters, an escaped lone surrogate, nesting at the
parser's limit and past it, wrong types. Path and query parameters get the same treatment as
text. After each operation's batch, /health must answer 200 from the same process, and no
answer may be a 5xx. Schemathesis (scripts/schemathesis.sh) explores the schema; this one
aims at the edges a schema-driven generator rarely reaches (the 2^63 that once ended the
process was never sent by 22,000 schemathesis requests).

It stops after SECONDS (default 120) and prints one summary line; exit 1 on any failure.
"""
import http.client, json, os, random, re, signal, subprocess, sys, time

wayfare, work = sys.argv[1], sys.argv[2]
budget = float(sys.argv[3]) if len(sys.argv) > 3 else 120.0
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.makedirs(work, exist_ok=True)
city = os.path.join(work, "city")
store = "sqlite:" + os.path.join(work, "store.sqlite")
for name in ("store.sqlite", "store.sqlite-wal", "store.sqlite-shm"):
    try: os.remove(os.path.join(work, name))
    except FileNotFoundError: pass

def fail(message):
    print("fuzz_api: " + message, file=sys.stderr)
    sys.exit(1)

data = os.path.join(root, "Data", "monaco")
if not os.path.exists(os.path.join(city, "city.json")):
    subprocess.run([wayfare, "city", "build", "--osm", data + "/monaco.osm.pbf", "--zones", data + "/wards.geojson",
                    "--service-area", data + "/communes.geojson", "--fares", data + "/fares.json", "--tolls", data + "/tolls.json",
                    "--name", "Monaco", "--no-geocoder", "--out", city], check=True, stdout=subprocess.DEVNULL)
admin_password = "Fuzz!admin-2026x"
made = subprocess.run([wayfare, "admin", "create", "--store", store, "--name", "Ops", "--mobile", "9000000001",
                       "--email", "ops@example.com"], input=admin_password + "\n", text=True, capture_output=True)
if made.returncode != 0: fail("admin create: " + made.stderr)
log = open(os.path.join(work, "server.log"), "w")
server = subprocess.Popen([wayfare, "serve", "--payments", "test", "--sms", "test", "--city", city, "--store", store,
                           "--port", "0", "--rate-limit", "0", "--log-level", "error"], stderr=subprocess.PIPE, text=True)
port = None
for line in server.stderr:
    m = re.search(r"http://127\.0\.0\.1:(\d+)", line)
    if m: port = int(m.group(1)); break
if port is None: fail("the server did not start")
# Keep reading its log, so that a full pipe never blocks it.
import threading
threading.Thread(target=lambda: [log.write(l) for l in server.stderr], daemon=True).start()
pid = server.pid

connection = [http.client.HTTPConnection("127.0.0.1", port, timeout=30)]
def request(method, path, body=None, headers=None):
    """The status and the parsed JSON (or None); raw bytes bodies are sent as they are."""
    h = dict(headers or {})
    payload = None
    if body is not None:
        payload = body if isinstance(body, (bytes, bytearray)) else json.dumps(body).encode()
        h["Content-Type"] = "application/json"
    for attempt in range(2):
        try:
            c = connection[0]
            c.request(method, path, body=payload, headers=h)
            r = c.getresponse()
            text = r.read()
            try: parsed = json.loads(text) if text else None
            except ValueError: parsed = None
            return r.status, parsed
        except (http.client.HTTPException, OSError):
            connection[0].close()
            connection[0] = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            if server.poll() is not None: fail("the server died (exit %s) on %s %s" % (server.returncode, method, path))
    fail("no answer to %s %s" % (method, path))

def token(mobile, password):
    status, answer = request("POST", "/v1/sessions", {"mobile": mobile, "password": password})
    if status != 201: fail("login %s: %s %s" % (mobile, status, answer))
    return answer["token"]

admin = token("9000000001", admin_password)
def bearer(t): return {"Authorization": "Bearer " + t}
status, _ = request("POST", "/v1/drivers", {"name": "Fuzz driver", "mobile": "9000000002", "email": "driver@example.com",
                                            "password": "steady wheels 7", "confirmation": "steady wheels 7"}, bearer(admin))
if status != 201: fail("driver: %s" % status)
driver = token("9000000002", "steady wheels 7")
request("POST", "/v1/driver/shift", {"cab_id": "FZ-1", "cab_type": "Sedan", "seats": 4}, bearer(driver))
request("POST", "/v1/driver/position", {"position": {"lat": 43.7347, "lon": 7.4226}}, bearer(driver))
request("POST", "/v1/driver/availability", {"available": True}, bearer(driver))
status, sent = request("POST", "/v1/accounts", {"name": "Fuzz", "mobile": "9123456780", "email": "fuzz@example.com",
                                                "password": "fuzzing rides 2026", "confirmation": "fuzzing rides 2026"})
request("POST", "/v1/accounts/verify", {"mobile": "9123456780", "code": (sent or {}).get("test_code") or ""})
passenger = token("9123456780", "fuzzing rides 2026")
request("POST", "/v1/wallet/refills", {"amount": 100000, "payment_token": "tok_visa"}, dict(bearer(passenger), **{"Idempotency-Key": "fuzz-refill"}))
roles = {"anonymous": {}, "passenger": bearer(passenger), "driver": bearer(driver), "admin": bearer(admin)}

status, document = request("GET", "/openapi.json")
if status != 200: fail("/openapi.json: %s" % status)
schemas = document.get("components", {}).get("schemas", {})
def resolve(s):
    while isinstance(s, dict) and "$ref" in s: s = schemas[s["$ref"].split("/")[-1]]
    return s

def example(schema, name=""):
    """A plausible valid value for a schema (the fuzzer breaks one field of it at a time)."""
    s = resolve(schema)
    if "anyOf" in s: return example(s["anyOf"][0], name)
    if "const" in s: return s["const"]
    if "enum" in s: return s["enum"][0]
    t = s.get("type")
    if t == "object":
        props = s.get("properties", {})
        if set(props) == {"lat", "lon"}: return {"lat": 43.7393, "lon": 7.4277}
        return {k: example(v, k) for k, v in props.items() if k in s.get("required", [])}
    if t == "array": return [example(s.get("items", {}), name)]
    if t == "integer": return max(1, s.get("minimum", 1))
    if t == "number": return 1.5
    if t == "boolean": return True
    if s.get("format") == "date-time": return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600))
    return {"cab_type": "Sedan", "payment_token": "tok_visa", "email": "x@example.com"}.get(name, "x")

def boundaries(schema):
    s = resolve(schema)
    longest = s.get("maxLength", 1000)
    deep_ok = "[" * 60 + "]" * 60
    deep_past = "[" * 600 + "]" * 600
    # Raw JSON texts (bytes are sent as they are), so that number spellings survive.
    raw = ["9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
           "18446744073709551616", "1e308", "-1e308", "-0.0", "1e-320", "9007199254740993", "0", "-1", "1.5",
           "true", "null", "{}", "[]", '""', json.dumps("x" * (longest + 1)), json.dumps("\u0000\u0001\u001f\u007f"),
           '"\\ud800"', '"\\udfff\\ud800"', json.dumps("\u202e\ufeff"), deep_ok, deep_past]
    return raw

def text_boundaries():
    return ["9223372036854775807", "9223372036854775808", "18446744073709551616", "-9223372036854775809", "1e308",
            "-0.0", "1e-320", "9007199254740993", "", "x" * 5000, "%00", "%ff%fe", "%ED%A0%80", "43.7,7.4,1", "nan,nan",
            "inf,-inf", "91,181", "-0.0,-0.0", "1e-320,1e-320"]

def splice(body, path, raw):
    """`body` as JSON text with the field at `path` replaced by the raw JSON text `raw`."""
    marker = "\u0000FUZZ\u0000"
    copy = json.loads(json.dumps(body))
    target = copy
    for key in path[:-1]: target = target[key]
    target[path[-1]] = marker
    return json.dumps(copy).replace(json.dumps(marker), raw).encode()

def fields(schema, prefix=()):
    s = resolve(schema)
    if s.get("type") != "object": return
    for k, v in s.get("properties", {}).items():
        yield prefix + (k,), v
        if resolve(v).get("type") == "object" and len(prefix) < 2:
            yield from fields(v, prefix + (k,))

start = time.time()
sent_count, failures, operations = 0, [], 0
def check(status, what):
    global sent_count
    sent_count += 1
    if status >= 500: failures.append("%s answered %d" % (what, status))

random.seed(1)
for path, item in sorted(document["paths"].items()):
    for method, op in sorted(item.items()):
        if time.time() - start > budget: break
        if path == "/v1/driver/offers/stream" or path == "/openapi.json": continue  # a stream never ends; the document is static
        operations += 1
        params = op.get("parameters", [])
        body_schema = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
        base_body = example(body_schema) if body_schema else None
        def url(values):
            p = path
            for prm in params:
                if prm["in"] == "path": p = p.replace("{%s}" % prm["name"], values.get(prm["name"], "1"))
            q = [(prm["name"], values.get(prm["name"], str(example(prm["schema"], prm["name"]) if prm["schema"].get("type") != "string" or "pattern" not in prm["schema"] else "43.7393,7.4277")))
                 for prm in params if prm["in"] == "query" and (prm.get("required") or prm["name"] in values)]
            from urllib.parse import quote
            return p + ("?" + "&".join("%s=%s" % (k, quote(v, safe="%,")) for k, v in q) if q else "")
        def headers(role):
            h = dict(roles[role])
            if any(prm["in"] == "header" and prm["name"] == "Idempotency-Key" for prm in params):
                h["Idempotency-Key"] = "fuzz-%d" % random.getrandbits(48)
            if any(prm["in"] == "header" and prm["name"] == "Wayfare-Signature" for prm in params):
                h["Wayfare-Signature"] = "t=%d,v1=%s" % (int(time.time()), "ab" * 32)
            return h
        for role in roles:
            body = json.dumps(base_body).encode() if base_body is not None else None
            check(request(method.upper(), url({}), body, headers(role))[0], "%s %s as %s" % (method, path, role))
            if body_schema:
                for fpath, fschema in fields(body_schema):
                    for raw in boundaries(fschema):
                        try: spliced = splice(base_body if isinstance(base_body, dict) else {}, fpath, raw)
                        except (KeyError, TypeError): spliced = (b'{"%s": ' % fpath[-1].encode()) + raw.encode() + b"}"
                        check(request(method.upper(), url({}), spliced, headers(role))[0],
                              "%s %s as %s, %s = %s" % (method, path, role, ".".join(fpath), raw[:40]))
            for prm in params:
                if prm["in"] not in ("path", "query"): continue
                for value in text_boundaries():
                    from urllib.parse import quote
                    check(request(method.upper(), url({prm["name"]: quote(value, safe="%,")}), body, headers(role))[0],
                          "%s %s as %s, %s = %r" % (method, path, role, prm["name"], value[:40]))
        status, health = request("GET", "/health")
        if status != 200 or server.poll() is not None or server.pid != pid:
            fail("after %s %s: /health %s, server %s" % (method, path, status, "gone" if server.poll() is not None else "up"))

server.send_signal(signal.SIGTERM)
try: code = server.wait(timeout=30)
except subprocess.TimeoutExpired: server.kill(); code = -1
for f in failures[:20]: print("fuzz_api: " + f, file=sys.stderr)
print("fuzz_api: %d requests over %d operations x 4 roles in %.0f s: %d server errors; /health answered from pid %d after every batch; exit %d after SIGTERM"
      % (sent_count, operations, time.time() - start, len(failures), pid, code))
if failures or code != 0: sys.exit(1)
