// The peer of `wayfare graph import` and `wayfare bench route` on a synthetic grid:
// RoutingKit's contraction hierarchy (the library issue 33 names) built from the same
// nodes.csv and edges.csv, one metric per run, on one thread (RoutingKit's build is
// sequential), then the OD file's pairs routed three times over; one JSON line.
//
// The weights are Wayfare's units, each edge rounded to the nearest: decimetres for
// distance, milliseconds for time. Each OD end goes to its nearest node (a brute-force
// scan, not timed), and a query is RoutingKit's node-to-node distance: no snapping onto an
// edge, no path, no geometry, all of which `wayfare bench route` includes.
//
// Build: see scripts/ch-peer.sh. Usage: routingkit-ch GRID_DIR distance|time OD.csv
#include <routingkit/contraction_hierarchy.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

using RoutingKit::ContractionHierarchy;
using RoutingKit::ContractionHierarchyQuery;

static double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static void fail(const std::string& message) {
    std::fprintf(stderr, "routingkit-ch: %s\n", message.c_str());
    std::exit(1);
}

int main(int argc, char** argv) {
    if (argc != 4) fail("usage: routingkit-ch GRID_DIR distance|time OD.csv");
    const std::string dir = argv[1], metric = argv[2];
    if (metric != "distance" && metric != "time") fail("metric: distance or time, not " + metric);
    std::ifstream nodes(dir + "/nodes.csv"), edges(dir + "/edges.csv"), od(argv[3]);
    if (!nodes || !edges || !od) fail("cannot read " + dir + "/nodes.csv, " + dir + "/edges.csv or " + argv[3]);

    std::string line;
    std::getline(nodes, line);  // id,lat,lon
    std::unordered_map<long long, unsigned> index;
    std::vector<double> lat, lon;
    while (std::getline(nodes, line)) {
        long long id; double a, b;
        if (std::sscanf(line.c_str(), "%lld,%lf,%lf", &id, &a, &b) != 3) fail("nodes.csv: bad row: " + line);
        index[id] = unsigned(lat.size());
        lat.push_back(a); lon.push_back(b);
    }
    std::getline(edges, line);  // from,to,length_m,time_s
    std::vector<unsigned> tail, head, weight;
    while (std::getline(edges, line)) {
        long long f, t; double metres, seconds;
        if (std::sscanf(line.c_str(), "%lld,%lld,%lf,%lf", &f, &t, &metres, &seconds) != 4) fail("edges.csv: bad row: " + line);
        auto from = index.find(f), to = index.find(t);
        if (from == index.end() || to == index.end()) fail("edges.csv: unknown node in: " + line);
        tail.push_back(from->second); head.push_back(to->second);
        weight.push_back(unsigned(std::llround(metric == "distance" ? metres * 10 : seconds * 1000)));
    }
    const unsigned n = unsigned(lat.size());
    const size_t m = tail.size();
    // RoutingKit takes the arcs sorted by tail.
    std::vector<size_t> by(m);
    for (size_t i = 0; i < m; ++i) by[i] = i;
    std::stable_sort(by.begin(), by.end(), [&](size_t a, size_t b) { return tail[a] < tail[b]; });
    std::vector<unsigned> sortedTail(m), sortedHead(m), sortedWeight(m);
    for (size_t i = 0; i < m; ++i) {
        sortedTail[i] = tail[by[i]]; sortedHead[i] = head[by[i]]; sortedWeight[i] = weight[by[i]];
    }

    const double start = now();
    ContractionHierarchy ch = ContractionHierarchy::build(n, sortedTail, sortedHead, sortedWeight);
    const double built = now() - start;
    const size_t arcs = ch.forward.head.size() + ch.backward.head.size();

    auto nearest = [&](double a, double b) {
        const double shrink = std::cos(a * M_PI / 180);
        double best = 1e300; unsigned at = 0;
        for (unsigned i = 0; i < n; ++i) {
            const double dy = lat[i] - a, dx = (lon[i] - b) * shrink, d = dx * dx + dy * dy;
            if (d < best) { best = d; at = i; }
        }
        return at;
    };
    std::getline(od, line);  // o_lat,o_lon,d_lat,d_lon
    std::vector<std::pair<unsigned, unsigned>> pairs;
    while (std::getline(od, line)) {
        double a, b, c, d;
        if (std::sscanf(line.c_str(), "%lf,%lf,%lf,%lf", &a, &b, &c, &d) != 4) fail("OD file: bad row: " + line);
        pairs.emplace_back(nearest(a, b), nearest(c, d));
    }
    if (pairs.empty()) fail("OD file: no pairs");

    ContractionHierarchyQuery query(ch);
    std::vector<double> times;
    unsigned long long sink = 0;
    for (int round = 0; round < 3; ++round) {
        for (const auto& [s, t] : pairs) {
            const double before = now();
            query.reset().add_source(s).add_target(t).run();
            sink += query.get_distance();
            times.push_back(now() - before);
        }
    }
    std::sort(times.begin(), times.end());
    std::printf("{\"peer\":\"RoutingKit\",\"metric\":\"%s\",\"nodes\":%u,\"arcs\":%zu,\"build_s\":%.1f,"
                "\"hierarchy_arcs\":%zu,\"queries\":%zu,\"route_p50_us\":%.1f,\"route_p99_us\":%.1f,\"sink\":%llu}\n",
                metric.c_str(), n, m, built, arcs, times.size(), times[times.size() / 2] * 1e6,
                times[times.size() * 99 / 100] * 1e6, sink % 10);
}
