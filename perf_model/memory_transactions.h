#pragma once
// What one warp-wide memory access costs the memory system, from the addresses its active lanes
// touch: 32-byte sectors of global memory, and shared-memory wavefronts (bank conflicts). The
// model applies these to the addresses it derives from a candidate's affine accesses; the PTX
// emulator to the addresses a kernel really touched. Header-only: the emulator is linked into
// a shared module and takes no library of the project.
#include <algorithm>
#include <array>
#include <cstdint>
#include <span>

namespace sculpt::perf_model {

/// One lane's access: its lane number in the warp (0..31), first byte and size (a vector access
/// is one access of its whole width).
struct LaneAccess {
  std::uint32_t lane = 0;
  std::uint64_t address = 0;
  std::uint32_t bytes = 4;
};

/// Distinct sectors of `sector_bytes` (32 on every NVIDIA GPU since Maxwell) the lanes touch
/// (0 when no lane is active).
inline std::uint32_t global_sectors(std::span<const LaneAccess> lanes,
                                    std::uint64_t sector_bytes = 32) {
  // At most 32 lanes, each within two sectors (aligned accesses of up to 16 bytes: one).
  std::array<std::uint64_t, 64> sectors{};
  std::size_t count = 0;
  for (const LaneAccess& a : lanes) {
    const std::uint64_t last = (a.address + a.bytes - 1) / sector_bytes;
    for (std::uint64_t s = a.address / sector_bytes; s <= last && count < sectors.size(); ++s) {
      sectors[count++] = s;
    }
  }
  std::sort(sectors.begin(), sectors.begin() + count);
  return static_cast<std::uint32_t>(std::unique(sectors.begin(), sectors.begin() + count) -
                                    sectors.begin());
}

/// Shared-memory wavefronts of one warp access: `banks` banks of 4 bytes (32 since Maxwell) serve
/// 4 * banks bytes a cycle, so with 32 banks a warp of 8-byte (16-byte) accesses goes in two
/// (four) phases of 16 (8) consecutive lanes; in each phase with an active lane, the bank that
/// holds the most distinct 4-byte words sets the wavefronts (lanes reading the same word share it).
inline std::uint32_t shared_wavefronts(std::span<const LaneAccess> lanes,
                                       std::uint32_t banks = 32) {
  constexpr std::uint64_t kBankBytes = 4;
  std::uint32_t bytes = 4;
  for (const LaneAccess& a : lanes) bytes = std::max(bytes, a.bytes);
  const std::uint32_t lanes_per_phase = std::max<std::uint32_t>(1, banks * 4 / bytes);
  std::uint32_t total = 0;
  for (std::uint32_t first = 0; first < 32; first += lanes_per_phase) {
    // The words this phase touches (at most 4 * banks bytes of lanes), then the distinct ones.
    std::array<std::uint64_t, 64> words{};
    std::size_t count = 0;
    for (const LaneAccess& a : lanes) {
      if (a.lane < first || a.lane >= first + lanes_per_phase) continue;
      for (std::uint64_t w = a.address / kBankBytes;
           w < (a.address + a.bytes + kBankBytes - 1) / kBankBytes && count < words.size(); ++w) {
        words[count++] = w;
      }
    }
    std::sort(words.begin(), words.begin() + count);
    count =
        static_cast<std::size_t>(std::unique(words.begin(), words.begin() + count) - words.begin());
    if (count == 0) continue;
    std::array<std::uint32_t, 64> per_bank{};  // banks <= 64
    std::uint32_t most = 0;
    for (std::size_t i = 0; i < count; ++i) most = std::max(most, ++per_bank[words[i] % banks]);
    total += most;
  }
  return total;
}

}  // namespace sculpt::perf_model
