import Foundation
import GeoJSON
import Hummingbird
import WayfareAPI

/// The live map at `/`: the city's streets and zones, the cabs moving, a route between two
/// clicked points, and a booking made and tracked from the page.
///
/// Why one page of plain HTML, CSS and JavaScript with SVG, inlined here: the page must
/// work on a machine with no internet (no CDN, no map tiles, no framework), and a string in
/// the binary cannot go missing the way a resource folder beside it can. The page uses only
/// the public API (`/v1/…`), so it doubles as that API's smallest client.
struct WebController {
    let server: WayfareServer

    /// `/`: the page.
    var pageRoutes: RouteCollection<WayfareContext> {
        let routes = RouteCollection(context: WayfareContext.self)
        routes.on(.page) { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            // Nothing from outside: scripts and styles are inline, requests go to this server.
            headers[.contentSecurityPolicy] = "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:"
            headers[.cacheControl] = "no-cache"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: WayfareServer.page)))
        }
        return routes
    }

    /// `/v1/streets`: the street geometry as one GeoJSON MultiLineString (the map's base).
    var streetRoutes: RouteCollection<WayfareContext> {
        let routes = RouteCollection(context: WayfareContext.self)
        let streets = JSONValue.object([
            ("type", .string("MultiLineString")),
            ("coordinates", .array(server.city.city.network.streetPolylines().map { line in
                .array(line.map { .array([.number(($0.longitude * 1e5).rounded() / 1e5), .number(($0.latitude * 1e5).rounded() / 1e5)]) })
            })),
        ]).serialized
        routes.on(.streets) { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/geo+json"
            headers[.cacheControl] = "public, max-age=3600"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: streets)))
        }
        return routes
    }
}

extension WayfareServer {
    static let page = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Wayfare</title>
<style>
  html, body { margin: 0; height: 100%; font: 14px/1.4 system-ui, sans-serif; color: #222; }
  body { display: flex; }
  #map { flex: 1; background: #f7f5f0; cursor: crosshair; }
  #side { width: 320px; padding: 12px 16px; border-left: 1px solid #ddd; overflow-y: auto; }
  h1 { font-size: 18px; margin: 0 0 4px; }
  .muted { color: #777; }
  button { font: inherit; padding: 6px 12px; margin: 4px 4px 4px 0; }
  #status { white-space: pre-wrap; background: #f3f3f3; padding: 8px; min-height: 3em; }
  .street { fill: none; stroke: #d8d4cc; stroke-width: 1; vector-effect: non-scaling-stroke; }
  .zone { fill: #3c7dd9; fill-opacity: .06; stroke: #3c7dd9; stroke-width: 1.2; vector-effect: non-scaling-stroke; }
  .area { fill: none; stroke: #333; stroke-width: 2.5; vector-effect: non-scaling-stroke; }
  .route { fill: none; stroke: #1b7f3b; stroke-width: 4; stroke-opacity: .7; vector-effect: non-scaling-stroke; }
  .driven { fill: none; stroke: #6a3fb5; stroke-width: 3; stroke-opacity: .8; vector-effect: non-scaling-stroke; }
  .route.other { stroke: #7a8a99; stroke-width: 3; stroke-opacity: .5; stroke-dasharray: 6 4; cursor: pointer; }
  #choices button { margin: 2px 4px 2px 0; }
  .ahead { fill: none; stroke: #e08a00; stroke-width: 3; stroke-dasharray: 6 4; vector-effect: non-scaling-stroke; }
  .cab { fill: #d62828; stroke: #fff; stroke-width: 1; vector-effect: non-scaling-stroke; }
  .cab.busy { fill: #888; }
  .mine { fill: #e08a00; stroke: #000; stroke-width: 2; vector-effect: non-scaling-stroke; }
  .pin { fill: #1b7f3b; stroke: #fff; stroke-width: 2; vector-effect: non-scaling-stroke; }
</style>
</head>
<body>
<svg id="map" xmlns="http://www.w3.org/2000/svg"><g id="streets"></g><g id="zones"></g><g id="routes"></g><g id="cabs"></g><g id="pins"></g></svg>
<div id="side">
  <h1 id="city">Wayfare</h1>
  <div class="muted">Click the map twice: pickup, then destination.</div>
  <p id="trip" class="muted">No trip chosen.</p>
  <p id="choices"></p>
  <button id="book" disabled>Book a cab now</button>
  <button id="clear">Clear</button>
  <p><b>Cabs</b> <span id="cabcount">0</span> on shift, <span id="freecount">0</span> free</p>
  <div id="status">Loading the city…</div>
  <p id="payments" hidden><b>Test payments:</b> this server charges no card; no money moves.</p>
</div>
<script>
"use strict";
const svg = document.getElementById("map");
const NS = "http://www.w3.org/2000/svg";
let view = null;          // {minLon, maxLat, scale, squeeze}
let pickup = null, destination = null, session = null, booking = null, myCab = null;
let myCabAt = null;        // [lon, lat] of the booked cab when last tracked, for "the cab moved"
const state = { ready: false, booked: false, cabMoved: false, error: null };
window.wayfare = state;   // the browser test reads this
// Where a place is on the screen (the browser test clicks there, as a person would).
window.wayfareScreenPoint = (lat, lon) => {
  const [x, y] = project(lon, lat);
  const point = svg.createSVGPoint(); point.x = x; point.y = y;
  const p = point.matrixTransform(svg.getScreenCTM());
  return { x: p.x, y: p.y };
};

function say(text) { document.getElementById("status").textContent = text; }
function fail(text) { state.error = text; say(text); }

async function api(method, path, body, extra) {
  const headers = Object.assign({ "Content-Type": "application/json" }, extra || {});
  if (session) headers["Authorization"] = "Bearer " + session;
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  const json = text ? JSON.parse(text) : null;
  if (!response.ok) throw new Error((json && json.error && json.error.message) || ("HTTP " + response.status));
  return json;
}

function project(lon, lat) {
  return [(lon - view.minLon) * view.squeeze * view.scale, (view.maxLat - lat) * view.scale];
}
function unproject(x, y) {
  return [view.minLon + x / (view.squeeze * view.scale), view.maxLat - y / view.scale];
}
function pathOf(lines, close) {
  return lines.map(line => line.map((p, i) => (i ? "L" : "M") + project(p[0], p[1]).map(v => v.toFixed(1)).join(",")).join("") + (close ? "Z" : "")).join("");
}
function add(group, tag, attributes) {
  const e = document.createElementNS(NS, tag);
  for (const k in attributes) e.setAttribute(k, attributes[k]);
  document.getElementById(group).appendChild(e);
  return e;
}

async function load() {
  const [zones, streets, ready, health] = await Promise.all([api("GET", "/v1/zones"), api("GET", "/v1/streets"), api("GET", "/ready"),
                                                           api("GET", "/health")]);
  document.getElementById("city").textContent = "Wayfare — " + ready.city;
  document.getElementById("payments").hidden = health.payments !== "test";
  let minLon = 180, maxLon = -180, minLat = 90, maxLat = -90;
  // Framed on the taxi zones: service areas can reach far beyond the streets served.
  const framed = zones.features.some(f => f.properties.kind === "zone") ? zones.features.filter(f => f.properties.kind === "zone") : zones.features;
  for (const f of framed) for (const poly of f.geometry.coordinates) for (const ring of poly) for (const p of ring) {
    minLon = Math.min(minLon, p[0]); maxLon = Math.max(maxLon, p[0]); minLat = Math.min(minLat, p[1]); maxLat = Math.max(maxLat, p[1]);
  }
  const squeeze = Math.cos((minLat + maxLat) / 2 * Math.PI / 180);
  const width = 1000, scale = width / ((maxLon - minLon) * squeeze), height = (maxLat - minLat) * scale;
  view = { minLon, maxLat, scale, squeeze };
  svg.setAttribute("viewBox", "-10 -10 " + (width + 20) + " " + (height + 20));
  add("streets", "path", { class: "street", d: pathOf(streets.coordinates, false) });
  for (const f of zones.features) {
    const e = add("zones", "path", { class: f.properties.kind === "zone" ? "zone" : "area", d: pathOf(f.geometry.coordinates.flat(), true), "fill-rule": "evenodd" });
    const title = document.createElementNS(NS, "title"); title.textContent = f.properties.name; e.appendChild(title);
  }
  say("Ready. Click a pickup point.");
  state.ready = true;
  refreshCabs();
  setInterval(refreshCabs, 1000);
}

async function refreshCabs() {
  try {
    const { cabs } = await api("GET", "/v1/cabs");
    const group = document.getElementById("cabs");
    group.textContent = "";
    let free = 0;
    // Cabs come without ids, at about 100 m: a map of the city, not a way to follow a driver.
    for (const c of cabs) {
      if (!c.position) continue;
      const [x, y] = project(c.position.lon, c.position.lat);
      if (c.status === "available") free++;
      const e = add("cabs", "circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: 4, class: c.status === "available" ? "cab" : "cab busy" });
      const title = document.createElementNS(NS, "title"); title.textContent = c.type + " (" + c.status + ")"; e.appendChild(title);
    }
    document.getElementById("cabcount").textContent = cabs.length;
    document.getElementById("freecount").textContent = free;
  } catch (e) { /* the next tick tries again */ }
}

svg.addEventListener("click", async event => {
  if (!view || booking) return;
  const point = svg.createSVGPoint(); point.x = event.clientX; point.y = event.clientY;
  const p = point.matrixTransform(svg.getScreenCTM().inverse());
  const [lon, lat] = unproject(p.x, p.y);
  await choose({ lat, lon });
});

let offered = [], chosenRoute = 0;

function pick(index) {
  chosenRoute = index;
  document.getElementById("routes").textContent = "";
  offered.forEach((r, i) => {
    if (i === index) return;
    const e = add("routes", "path", { class: "route other", d: pathOf([r.geometry.coordinates], false) });
    e.addEventListener("click", ev => { ev.stopPropagation(); pick(i); });
  });
  const route = offered[index];
  add("routes", "path", { class: "route", d: pathOf([route.geometry.coordinates], false) });
  const fare = route.fare_estimate == null ? "" : ", about " + (route.fare_estimate / 100).toFixed(2);
  document.getElementById("trip").textContent = (route.distance_m / 1000).toFixed(2) + " km, " + Math.round(route.duration_s / 60) +
    " min by road" + (route.streets.length ? " via " + route.streets.slice(0, 3).join(", ") : "") + fare + ".";
  const buttons = document.getElementById("choices");
  buttons.textContent = "";
  if (offered.length > 1) offered.forEach((r, i) => {
    const b = document.createElement("button");
    b.textContent = (i === 0 ? "Fastest" : "Route " + (i + 1)) + ": " + Math.round(r.duration_s / 60) + " min" + (i === index ? " ✓" : "");
    b.addEventListener("click", () => pick(i));
    buttons.appendChild(b);
  });
  state.routesOffered = offered.length;
}

async function choose(place) {
  if (!pickup || destination) { pickup = place; destination = null; } else { destination = place; }
  document.getElementById("pins").textContent = "";
  document.getElementById("routes").textContent = "";
  for (const q of [pickup, destination]) if (q) { const [x, y] = project(q.lon, q.lat); add("pins", "circle", { class: "pin", cx: x, cy: y, r: 6 }); }
  document.getElementById("book").disabled = true;
  if (!destination) {
    document.getElementById("choices").textContent = "";
    document.getElementById("trip").textContent = "Pickup chosen; now the destination."; return;
  }
  try {
    const from = pickup.lat + "," + pickup.lon, to = destination.lat + "," + destination.lon;
    // The fastest route and up to two alternatives; the passenger picks one (a click on it or its button).
    offered = (await api("GET", "/v1/route?from=" + from + "&to=" + to + "&alternatives=3")).routes;
    pick(0);
    document.getElementById("book").disabled = false;
  } catch (e) { document.getElementById("trip").textContent = e.message; }
}

async function guest() {
  // A guest passenger of this page: registered, signed in and given a test-card refill.
  const mobile = "6" + String(Math.floor(Math.random() * 1e9)).padStart(9, "0");
  const password = "guest-" + Math.random().toString(36).slice(2) + "-ride";
  const sent = await api("POST", "/v1/accounts", { name: "Guest", mobile, email: "guest" + mobile + "@page.example", password, confirmation: password });
  // The code texted to the phone; a server on test SMS gives it back in the answer.
  const code = sent.test_code || prompt("The code sent to " + mobile + ":");
  await api("POST", "/v1/accounts/verify", { mobile, code });
  session = (await api("POST", "/v1/sessions", { mobile, password })).token;
  await api("POST", "/v1/wallet/refills", { amount: 200000, payment_token: "tok_visa" }, { "Idempotency-Key": "page-" + mobile });
}

document.getElementById("book").addEventListener("click", async () => {
  document.getElementById("book").disabled = true;
  try {
    say("Signing in as a guest…");
    if (!session) await guest();
    say("Booking…");
    const key = "page-" + Date.now() + "-" + Math.random().toString(36).slice(2);
    booking = await api("POST", "/v1/bookings", { pickup, destination, cab_type: "Sedan", route: chosenRoute }, { "Idempotency-Key": key });
    document.getElementById("choices").textContent = "";
    state.booked = true;
    state.bookedRoute = booking.route;
    say("Booking " + booking.number + ": looking for a cab…");
    track();
  } catch (e) { fail("Could not book: " + e.message); document.getElementById("book").disabled = false; }
});

async function track() {
  if (!booking) return;
  try {
    const b = await api("GET", "/v1/bookings/" + booking.number);
    const t = await api("GET", "/v1/bookings/" + booking.number + "/track");
    myCab = b.cab;
    document.getElementById("routes").querySelectorAll(".ahead").forEach(e => e.remove());
    if (t.remaining_route.coordinates.length > 1) add("routes", "path", { class: "ahead", d: pathOf([t.remaining_route.coordinates], false) });
    // The booked cab, exactly: its passenger's tracking is the one view of a cab's position.
    if (t.cab_position) {
      const at = [t.cab_position.lon, t.cab_position.lat];
      if (myCabAt && (myCabAt[0] !== at[0] || myCabAt[1] !== at[1])) state.cabMoved = true;
      myCabAt = at;
      const [x, y] = project(at[0], at[1]);
      add("routes", "circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: 7, class: "mine ahead" });
    }
    const eta = (t.eta_s == null ? "" : ", " + Math.round(t.eta_s) + " s away") +
      (t.deviations > 0 ? " (the cab left its route; the new one is drawn)" : "");
    const what = { requested: "looking for a cab", allocated: "cab " + b.cab + " is coming" + eta, arrived: "cab " + b.cab + " is here",
                   started: "on the way" + eta, completed: "arrived; fare " + (b.fare / 100).toFixed(2), cancelled: "cancelled",
                   "not-served": "not served: " + (b.reason || "") }[b.state] || b.state;
    say("Booking " + b.number + ": " + what + ".");
    if (b.state === "completed") {
      // The track the cab drove, matched to the roads, as kept with the trip.
      const h = await api("GET", "/v1/bookings/" + b.number + "/history");
      document.getElementById("routes").querySelectorAll(".ahead").forEach(e => e.remove());
      if (h.driven_track.length) add("routes", "path", { class: "driven", d: pathOf(h.driven_track.map(l => l.coordinates), false) });
      state.drivenTrackDrawn = h.driven_track.length > 0;
    }
    if (["completed", "cancelled", "not-served"].includes(b.state)) { booking = null; return; }
  } catch (e) { say("Tracking: " + e.message); }
  setTimeout(track, 1000);
}

document.getElementById("clear").addEventListener("click", () => {
  pickup = destination = null;
  for (const g of ["pins", "routes", "choices"]) document.getElementById(g).textContent = "";
  offered = []; chosenRoute = 0;
  document.getElementById("trip").textContent = "No trip chosen.";
  document.getElementById("book").disabled = true;
});

load().catch(e => fail("Could not load the city: " + e.message));
</script>
</body>
</html>
"""#
}
