// The peer of `wayfare bench knn`'s bare tree: nanoflann's static k-d tree over the same
// cabs, k = 1 and k = 10 for the same queries, each pass timed as a whole, the median of
// REPEATS passes; one JSON line per layout.
//
// Three layouts, all static (nanoflann takes no updates):
//   - "sphere": unit vectors in 3-D, ranked by chord length, which ranks exactly as the
//     great-circle distance Wayfare ranks by: the same answers, the fair peer; the queries'
//     unit vectors are computed before the clock starts;
//   - "sphere-from-degrees": the same tree, each query's unit vector computed from its
//     latitude and longitude inside the timed loop, as Wayfare's query does;
//   - "degrees": raw (lat, lon) in 2-D, the way nanoflann is most often used: planar
//     answers, which differ from the great-circle ones away from the equator.
//
// Build: g++ -O3 -march=native -std=c++17 scripts/nanoflann-knn.cpp -o nanoflann-knn
// (needs Debian's libnanoflann-dev). Usage: nanoflann-knn CABS.csv QUERIES.csv [REPEATS]
#include <nanoflann.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

template <size_t D>
struct Cloud {
    std::vector<std::array<double, D>> points;
    size_t kdtree_get_point_count() const { return points.size(); }
    double kdtree_get_pt(size_t i, size_t d) const { return points[i][d]; }
    template <class Box>
    bool kdtree_get_bbox(Box&) const { return false; }
};

// The last two comma-separated fields of each line after the header: lat, lon. A field that
// is not a finite number, or out of range, is an error naming its file and line.
bool readLatLon(const char* path, std::vector<std::array<double, 2>>& out) {
    std::ifstream in(path);
    if (!in) { std::fprintf(stderr, "%s: cannot be read\n", path); return false; }
    std::string line;
    std::getline(in, line);  // header
    for (size_t n = 2; std::getline(in, line); n++) {
        if (line.empty()) continue;
        size_t last = line.rfind(','), before = last == std::string::npos || last == 0 ? std::string::npos : line.rfind(',', last - 1);
        if (last == std::string::npos) { std::fprintf(stderr, "%s: line %zu: expected lat,lon\n", path, n); return false; }
        size_t latStart = before == std::string::npos ? 0 : before + 1;
        std::string latText = line.substr(latStart, last - latStart), lonText = line.substr(last + 1);
        char *latEnd = nullptr, *lonEnd = nullptr;
        double lat = std::strtod(latText.c_str(), &latEnd), lon = std::strtod(lonText.c_str(), &lonEnd);
        if (latText.empty() || *latEnd != '\0' || !std::isfinite(lat) || lat < -90 || lat > 90) {
            std::fprintf(stderr, "%s: line %zu: lat \"%s\" is not a latitude\n", path, n, latText.c_str());
            return false;
        }
        if (lonText.empty() || (*lonEnd != '\0' && *lonEnd != '\r') || !std::isfinite(lon) || lon < -180 || lon > 180) {
            std::fprintf(stderr, "%s: line %zu: lon \"%s\" is not a longitude\n", path, n, lonText.c_str());
            return false;
        }
        out.push_back({lat, lon});
    }
    return true;
}

std::array<double, 3> unit(const std::array<double, 2>& c) {
    const double phi = c[0] * M_PI / 180, lambda = c[1] * M_PI / 180;
    return {std::cos(phi) * std::cos(lambda), std::cos(phi) * std::sin(lambda), std::sin(phi)};
}

// Each query is turned into the tree's point by `toPoint` inside the timed loop: the
// identity for the layouts whose queries are given as points, the unit vector of a
// latitude and longitude for "sphere-from-degrees", which pays what a caller holding
// coordinates pays (Wayfare's own figures include that conversion).
template <size_t D, typename Query, typename ToPoint>
void run(const char* layout, const std::vector<std::array<double, D>>& cabs,
         const std::vector<Query>& queries, int repeats, ToPoint toPoint) {
    using Tree = nanoflann::KDTreeSingleIndexAdaptor<nanoflann::L2_Simple_Adaptor<double, Cloud<D>>, Cloud<D>, D>;
    Cloud<D> cloud{cabs};
    auto t0 = std::chrono::steady_clock::now();
    Tree tree(D, cloud, nanoflann::KDTreeSingleIndexAdaptorParams(10));
    tree.buildIndex();
    double buildMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    unsigned index[10];  // nanoflann 1.4's default AccessorType
    double dist2[10];
    size_t sink = 0;
    auto pass = [&](size_t k) {
        auto start = std::chrono::steady_clock::now();
        for (const auto& q : queries) {
            const std::array<double, D> p = toPoint(q);
            size_t n = tree.knnSearch(p.data(), k, index, dist2);
            sink += n ? index[0] : 0;
        }
        return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / queries.size();
    };
    auto median = [&](size_t k) {
        std::vector<double> t;
        for (int r = 0; r < repeats; r++) t.push_back(pass(k));
        std::sort(t.begin(), t.end());
        return t[t.size() / 2];
    };
    double k1 = median(1), k10 = median(10);
    std::printf("{\"peer\":\"nanoflann\",\"layout\":\"%s\",\"cabs\":%zu,\"build_ms\":%.1f,\"k1_ns\":%.0f,\"k10_ns\":%.0f,\"sink\":%zu}\n",
                layout, cabs.size(), buildMs, k1, k10, sink % 10);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: nanoflann-knn CABS.csv QUERIES.csv [REPEATS]\n");
        return 2;
    }
    int repeats = argc > 3 ? std::max(1, std::atoi(argv[3])) : 3;
    std::vector<std::array<double, 2>> cabs, queries;
    if (!readLatLon(argv[1], cabs)) return 1;
    if (!readLatLon(argv[2], queries)) return 1;
    if (cabs.empty()) { std::fprintf(stderr, "%s: no cabs\n", argv[1]); return 1; }
    if (queries.empty()) { std::fprintf(stderr, "%s: no queries\n", argv[2]); return 1; }
    std::vector<std::array<double, 3>> cabs3, queries3;
    for (const auto& c : cabs) cabs3.push_back(unit(c));
    for (const auto& q : queries) queries3.push_back(unit(q));
    auto same = [](const auto& q) { return q; };
    run<3>("sphere", cabs3, queries3, repeats, same);
    run<3>("sphere-from-degrees", cabs3, queries, repeats, unit);
    run<2>("degrees", cabs, queries, repeats, same);
    return 0;
}
