#include "perf_model/warp_accesses.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <vector>

#include "perf_model/memory_transactions.h"

namespace sculpt::perf_model {
namespace {

std::int64_t modulo(std::int64_t a, std::int64_t m) { return ((a % m) + m) % m; }

/// The active lanes of one warp, their offsets taken from the smallest.
struct Pattern {
  std::vector<LaneAccess> lanes;
  std::vector<std::optional<std::uint32_t>> sectors;  // by residue of the smallest offset
  std::uint32_t wavefronts = 0;

  std::uint32_t sectors_at(std::int64_t residue, std::int64_t sector_bytes) {
    std::optional<std::uint32_t>& s = sectors[static_cast<std::size_t>(residue)];
    if (!s) {
      std::vector<LaneAccess> moved = lanes;
      for (LaneAccess& a : moved) a.address += static_cast<std::uint64_t>(residue);
      s = global_sectors(moved, static_cast<std::uint64_t>(sector_bytes));
    }
    return *s;
  }
};

WarpTotals compute(const LaneShape& shape, std::span<const Shift> shifts, std::int64_t base,
                   std::int64_t sector_bytes, std::uint32_t banks) {
  const std::int64_t R = sector_bytes;
  // How many iterations start the access at each residue modulo a sector.
  std::vector<double> residues(static_cast<std::size_t>(R), 0);
  residues[static_cast<std::size_t>(modulo(base, R))] = 1;
  for (const Shift& shift : shifts) {
    if (shift.size <= 1) continue;
    const std::int64_t c = modulo(shift.coeff, R);
    if (c == 0) {
      // Whole sectors apart: every residue stays, `size` times.
      for (double& r : residues) r *= static_cast<double>(shift.size);
      continue;
    }
    const std::int64_t period = R / std::gcd(c, R);
    std::vector<double> step(static_cast<std::size_t>(R), 0);
    for (std::int64_t i = 0; i < period; ++i) {
      step[static_cast<std::size_t>(c * i % R)] +=
          static_cast<double>(shift.size / period + (i < shift.size % period ? 1 : 0));
    }
    std::vector<double> next(static_cast<std::size_t>(R), 0);
    for (std::int64_t a = 0; a < R; ++a) {
      if (residues[a] == 0) continue;
      for (std::int64_t b = 0; b < R; ++b) {
        if (step[b] != 0) next[(a + b) % R] += residues[a] * step[b];
      }
    }
    residues = std::move(next);
  }
  const double iterations = std::accumulate(residues.begin(), residues.end(), 0.0);

  WarpTotals totals;
  const std::int64_t threads = shape.block[0] * shape.block[1] * shape.block[2];
  std::vector<Pattern> patterns;
  std::array<std::int64_t, 3> tid{0, 0, 0};  // of thread `t`, x fastest
  for (std::int64_t first = 0; first < threads; first += 32) {
    totals.accesses += iterations;
    std::vector<LaneAccess> lanes;
    std::int64_t smallest = 0;
    for (std::int64_t t = first; t < std::min(first + 32, threads); ++t) {
      bool active = true;
      std::int64_t offset = 0;
      for (int l = 0; l < 3; ++l) {
        active = active && (shape.bound[l] == 0 ? tid[l] == 0 : tid[l] < shape.bound[l]);
        offset += shape.coeff[l] * tid[l];
      }
      for (int l = 0; l < 3 && ++tid[l] == shape.block[l]; ++l) tid[l] = 0;
      if (!active) continue;
      smallest = lanes.empty() ? offset : std::min(smallest, offset);
      lanes.push_back({static_cast<std::uint32_t>(t - first), static_cast<std::uint64_t>(offset),
                       shape.lane_bytes});
    }
    if (lanes.empty()) continue;
    for (LaneAccess& a : lanes) a.address -= static_cast<std::uint64_t>(smallest);
    auto found = std::find_if(patterns.begin(), patterns.end(), [&](const Pattern& p) {
      return std::equal(p.lanes.begin(), p.lanes.end(), lanes.begin(), lanes.end(),
                        [](const LaneAccess& a, const LaneAccess& b) {
                          return a.lane == b.lane && a.address == b.address;
                        });
    });
    if (found == patterns.end()) {
      Pattern p;
      p.lanes = lanes;
      p.sectors.resize(static_cast<std::size_t>(R));
      // A shift moves every lane alike: the banks are permuted, their load is not.
      p.wavefronts = shared_wavefronts(lanes, banks);
      patterns.push_back(std::move(p));
      found = patterns.end() - 1;
    }
    totals.wavefronts += found->wavefronts * iterations;
    for (std::int64_t r = 0; r < R; ++r) {
      if (residues[r] == 0) continue;
      totals.sectors += residues[r] * found->sectors_at(modulo(r + smallest, R), R);
    }
  }
  return totals;
}

/// Every argument of warp_totals, as words (the base modulo a sector: only that matters).
struct Key {
  std::vector<std::int64_t> words;
  bool operator==(const Key&) const = default;
};

struct KeyHash {
  std::size_t operator()(const Key& key) const {
    std::uint64_t h = 0xCBF29CE484222325ull;
    for (std::int64_t w : key.words) h = (h ^ static_cast<std::uint64_t>(w)) * 0x100000001B3ull;
    return h;
  }
};

constexpr std::size_t kCapacity = 1 << 14;
thread_local std::unordered_map<Key, WarpTotals, KeyHash> t_answers;

}  // namespace

WarpTotals warp_totals(const LaneShape& shape, std::span<const Shift> shifts, std::int64_t base,
                       std::int64_t sector_bytes, std::uint32_t banks) {
  Key key;
  key.words.reserve(14 + 2 * shifts.size());
  key.words.insert(key.words.end(), shape.block.begin(), shape.block.end());
  key.words.insert(key.words.end(), shape.coeff.begin(), shape.coeff.end());
  key.words.insert(key.words.end(), shape.bound.begin(), shape.bound.end());
  key.words.insert(key.words.end(),
                   {shape.lane_bytes, modulo(base, sector_bytes), sector_bytes, banks});
  for (const Shift& s : shifts) key.words.insert(key.words.end(), {s.coeff, s.size});
  if (const auto found = t_answers.find(key); found != t_answers.end()) return found->second;
  if (t_answers.size() >= kCapacity) t_answers.clear();
  const WarpTotals totals = compute(shape, shifts, base, sector_bytes, banks);
  t_answers.emplace(std::move(key), totals);
  return totals;
}

void forget_warp_totals() { t_answers.clear(); }

}  // namespace sculpt::perf_model
