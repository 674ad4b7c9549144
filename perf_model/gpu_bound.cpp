// The bound on a GPU (model.h): the three layers over a candidate's domains.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "gpu_space/fixed_choices.h"
#include "perf_model/bounds.h"
#include "perf_model/vector_access.h"
#include "perf_model/warp_accesses.h"
#include "support/check.h"

namespace sculpt::perf_model {

namespace values = gpu_space::values;
namespace kind = gpu_space::values::dim_kind;
using backbone::DimId;
using backbone::InstId;

namespace {

constexpr spacegen::ValueSet kSequential = kind::LOOP | kind::UNROLL | kind::VECTOR;
constexpr std::size_t kLanes = 32;

std::size_t index(InstrClass c) { return static_cast<std::size_t>(c); }

double sum(const ClassCounts& counts) {
  double total = 0;
  for (double c : counts) total += c;
  return total;
}

/// Warp instructions of the fp32 pipe.
double fp32_of(const ClassCounts& c) {
  return c[index(InstrClass::fp32_fma)] + c[index(InstrClass::fp32_add)] +
         c[index(InstrClass::fp32_mul)] + c[index(InstrClass::fp32_other)];
}

/// Load and store warp instructions.
double memory_of(const ClassCounts& c) {
  return c[index(InstrClass::global_load)] + c[index(InstrClass::global_store)] +
         c[index(InstrClass::shared_load)] + c[index(InstrClass::shared_store)];
}

/// What one present instruction costs, as far as the candidate says.
struct InstCost {
  const backbone::Instruction* inst = nullptr;
  const InstFacts* facts = nullptr;
  /// Warp instructions of each class one execution issues, memory ones included once known.
  ClassCounts per_execution{};
  /// Charged executions (every warp of every block, once per iteration of its dependence
  /// loops), and what one warp issues for them.
  double charged = 0;
  double per_warp = 0;
  double executed = 0;
  WarpTotals charged_memory;
  WarpTotals executed_memory;
  bool exact = false;
  /// Where exact: the dimension whose iterations one vector access moves, and their number.
  std::optional<DimId> vector_dim;
  std::int64_t vector_width = 1;
};

/// An access's address, in elements: along each of its instruction's dimensions (InstFacts::dims)
/// and its constant offset.
struct Address {
  std::vector<std::int64_t> coeffs;
  std::int64_t constant = 0;
};

/// What one thread's access moves at once: a vector access along dimension `vector` (-1: none)
/// of `lane_bytes`, and `merge` consecutive ones along dimension `merged` (-1: none).
struct Widening {
  int vector = -1;
  std::uint32_t lane_bytes = 4;
  int merged = -1;
  std::int64_t merge = 1;
};

/// How the lanes of a block's warps address memory, the loops that move the address (charged:
/// those of its dependence loops and blocks, merged; executed: every one), and the iterations of
/// its own loops its work does not depend on.
struct Walk {
  LaneShape lanes;
  std::vector<Shift> charged;
  std::vector<Shift> executed;
  double hoistable = 1;
};

/// The whole GPU's figures, read once per bound.
struct Gpu {
  explicit Gpu(const GpuRates& r)
      : sms(r.sms.value),
        clock(r.clock_hz.value),
        warp(r.warp_size.value),
        issue(r.issue_per_clock.value),
        fp32(r.fp32_per_clock.value),
        fp64(r.fp64_per_clock.value),
        special(r.special_per_clock.value),
        memory(r.memory_per_clock.value),
        rates(r) {}
  double sms, clock, warp, issue, fp32, fp64, special, memory;
  const GpuRates& rates;

  /// Nanoseconds of `cycles` clocks.
  double ns(double cycles) const { return cycles / clock * 1e9; }
};

class GpuBound {
 public:
  GpuBound(const CandidateView& view, const GpuRates& rates, Layers layers, Counting counting,
           Bound& out)
      : v_(view),
        gpu_(rates),
        layers_(layers),
        executed_(counting == Counting::executed && view.fully_specified),
        out_(out) {}

  void run() {
    shape();
    for (const backbone::Instruction* inst : v_.instructions()) costs_.push_back(cost(*inst));
    barriers();
    floors();
    if (layers_ == Layers::floors) return;
    pressure();
    if (layers_ == Layers::pressure) return;
    latency();
  }

 private:
  // ----- The block and the grid --------------------------------------------------------------

  void shape() {
    const std::vector<DimId> blocks = v_.dims_of_kind(kind::BLOCK, /*certain=*/true);
    const std::vector<DimId> maybe_blocks = v_.dims_of_kind(kind::BLOCK, /*certain=*/false);
    blocks_lo_ = v_.product_lo(blocks);
    blocks_hi_ = v_.product_hi(maybe_blocks);
    blocks_fixed_ = blocks.size() == maybe_blocks.size() && blocks_lo_ == blocks_hi_;
    threads_lo_ = static_cast<double>(v_.block_threads.lo);
    threads_hi_ = static_cast<double>(v_.block_threads.hi);
    warps_lo_ = std::ceil(threads_lo_ / gpu_.warp);
    warps_hi_ = std::ceil(threads_hi_ / gpu_.warp);
    out_.counts.blocks = blocks_lo_;
    out_.counts.threads_per_block = threads_lo_;
  }

  /// The smallest share of the blocks one SM runs: all of them on each of B SMs when there are
  /// fewer than SMs, else at least 1/SMs of them.
  double sm_share() const {
    if (blocks_fixed_) return std::ceil(blocks_lo_ / gpu_.sms) / blocks_lo_;
    return blocks_hi_ <= gpu_.sms ? 1 / blocks_hi_ : 1 / gpu_.sms;
  }

  // ----- Per instruction ---------------------------------------------------------------------

  /// A memory access's class, once the candidate says where its region lives.
  std::optional<InstrClass> memory_class(const InstCost& c, bool* shared) const {
    *shared = false;
    if (c.facts->temporary) {
      const spacegen::ValueSet space = v_.candidate.get_mem_space(c.inst->access->mem.value);
      if (space != values::mem_space::SHARED && space != values::mem_space::GLOBAL)
        return std::nullopt;
      *shared = space == values::mem_space::SHARED;
    }
    if (c.facts->is_load) return *shared ? InstrClass::shared_load : InstrClass::global_load;
    return *shared ? InstrClass::shared_store : InstrClass::global_store;
  }

  /// Whether a memory instruction may access several elements at once along its dimension `d`
  /// (vector_access.h's rules over domains): a vector dimension (16 bytes at most), or an
  /// unrolled one whose consecutive accesses ptxas merges into vector ones.
  bool may_merge(const InstCost& c, const DimView& d) const {
    return c.inst->access &&
           ((d.may_be(kind::VECTOR) && d.lo * c.facts->elem_bytes <= kMaxAccessBytes) ||
            d.may_be(kind::UNROLL));
  }

  InstCost cost(const backbone::Instruction& inst) {
    InstCost c;
    c.inst = &inst;
    c.facts = &v_.facts.insts[inst.id.value];
    const InstFacts& f = *c.facts;
    c.per_execution = f.per_execution;
    bool shared = false;
    if (inst.access) {
      if (const std::optional<InstrClass> m = memory_class(c, &shared))
        c.per_execution[index(*m)] += 1;
    }
    // The generic bound: every distinct value computed by some lane of some warp instruction,
    // 32 lanes (or the block's threads, when fewer) to a warp instruction.
    double widest = 1;
    double seq_lo = 1;  // iterations of its dependence loops one thread runs, at least
    for (std::size_t k = 0; k < f.dims.size(); ++k) {
      const DimView& d = v_.dim(f.dims[k]);
      const bool merges = may_merge(c, d);
      if (merges) {
        widest = std::max(widest, std::min<double>(kMaxAccessBytes / f.elem_bytes, d.hi));
      }
      if (!f.dep_dim[k] || !d.only(kSequential)) continue;
      // 16 bytes to an access at most.
      seq_lo *= merges ? std::ceil(static_cast<double>(d.lo * f.elem_bytes) / kMaxAccessBytes)
                       : static_cast<double>(d.lo);
    }
    c.charged = f.distinct / widest / std::min<double>(kLanes, threads_hi_);
    if (inst.access && !f.temporary) c.charged_memory.sectors = f.footprint_sectors;
    if (layers_ != Layers::floors) {
      // Every warp of every block runs its dependence loops' iterations.
      c.charged = std::max(c.charged, blocks_lo_ * warps_lo_ * seq_lo);
      c.per_warp = seq_lo * issued_per_execution(c);
      exact_cost(c, shared);
    }
    c.executed = std::max(c.executed, c.charged);
    return c;
  }

  /// Warp instructions one execution issues (an access of a temporary not yet placed in a
  /// memory space counts as one).
  static double issued_per_execution(const InstCost& c) {
    const double placed = sum(c.per_execution);
    return c.inst->access && placed == 0 ? 1 : placed;
  }

  /// The exact counts of an instruction whose own dimensions, block and grid are fixed.
  void exact_cost(InstCost& c, bool shared) {
    const InstFacts& f = *c.facts;
    if (!v_.shape_fixed || !blocks_fixed_) return;
    std::vector<std::int64_t> sizes(f.dims.size());
    for (std::size_t k = 0; k < f.dims.size(); ++k) {
      const DimView& d = v_.dim(f.dims[k]);
      if (!d.fixed() || (d.kinds == kind::THREAD && !std::has_single_bit(d.levels))) return;
      sizes[k] = d.lo;
    }
    const std::optional<Address> address = address_of(c);
    if (!address) return;
    const Widening widening = widening_of(c, sizes, *address);
    if (widening.vector >= 0) {
      c.vector_dim = f.dims[widening.vector];
      c.vector_width = sizes[widening.vector];
    }
    // Address strides and offset, in bytes.
    std::vector<std::int64_t> stride(f.dims.size());
    for (std::size_t k = 0; k < f.dims.size(); ++k) stride[k] = address->coeffs[k] * f.elem_bytes;
    const std::int64_t constant = address->constant * f.elem_bytes;
    const Walk walk = walk_of(f, sizes, stride, widening);
    // Blocks of dimensions it does not iterate on run it too, as copies.
    std::vector<DimId> own_blocks;
    for (DimId d : f.dims) {
      if (v_.dim(d).kinds == kind::BLOCK) own_blocks.push_back(d);
    }
    const double other_blocks =
        v_.product_lo(v_.dims_of_kind(kind::BLOCK, /*certain=*/true), own_blocks);
    const double issued = issued_per_execution(c);
    c.exact = true;
    if (!c.inst->access) {
      double iterations = other_blocks * warps_lo_;
      for (const Shift& s : walk.charged) iterations *= static_cast<double>(s.size);
      c.charged = iterations;
      c.per_warp = iterations / (blocks_lo_ * warps_lo_) * issued;
      if (executed_) c.executed = iterations * walk.hoistable * outside_repeats(*c.inst, f);
      return;
    }
    memory_cost(c, shared, walk, widening, constant, other_blocks);
    c.per_warp = c.charged / (blocks_lo_ * warps_lo_) * issued;
  }

  /// An access's address in elements: its coefficient along each of its instruction's
  /// dimensions and its constant (all 0 for an instruction that accesses no memory); none while
  /// a temporary's layout or memory space is open.
  std::optional<Address> address_of(const InstCost& c) const {
    const InstFacts& f = *c.facts;
    const backbone::Instruction& inst = *c.inst;
    Address address{std::vector<std::int64_t>(f.dims.size(), 0), 0};
    if (!inst.access) return address;
    if (!f.temporary) {
      const auto strides = v_.kernel.access_strides(inst.id, [&](DimId d) { return v_.dim(d).lo; });
      for (const auto& [dim, elements] : strides) {
        const auto at = std::find(f.dims.begin(), f.dims.end(), dim);
        address.coeffs[at - f.dims.begin()] += elements;
      }
      address.constant = inst.access->index.constant;
      return address;
    }
    const std::optional<backbone::Kernel::TempLayout> layout =
        gpu_space::fixed_temp_layout(v_.candidate, inst.access->mem);
    bool shared = false;
    if (!layout || !memory_class(c, &shared)) return std::nullopt;
    const backbone::CommId comm = v_.kernel.mem(inst.access->mem).added_by;
    for (const auto& [m, elements] : layout->strides) {
      const backbone::DimMapping& mapping = v_.kernel.mapping(m);
      const DimId dim = f.is_store ? mapping.src : v_.kernel.load_dim(comm, mapping.dst);
      const auto at = std::find(f.dims.begin(), f.dims.end(), dim);
      SCULPT_CHECK(at != f.dims.end()) << inst.name << " does not iterate on its temporary's dims";
      address.coeffs[at - f.dims.begin()] += elements;
    }
    return address;
  }

  /// What one thread's access moves at once (vector_access.h): a vector access along its
  /// vector dimension where codegen prints one, and the widest merge ptxas makes of
  /// consecutive accesses along an unrolled dimension, which is charged (the printed PTX's
  /// accesses are executed).
  Widening widening_of(const InstCost& c, const std::vector<std::int64_t>& sizes,
                       const Address& address) const {
    const InstFacts& f = *c.facts;
    Widening w;
    w.lane_bytes = static_cast<std::uint32_t>(f.elem_bytes);
    if (!c.inst->access) return w;
    const AffineAccess affine{address.coeffs, address.constant, f.elem_bytes};
    std::optional<std::size_t> vector;
    for (std::size_t k = 0; k < f.dims.size(); ++k) {
      if (v_.dim(f.dims[k]).kinds == kind::VECTOR) vector = k;
    }
    if (vector && is_vector_access(affine, *vector, sizes[*vector])) {
      w.vector = static_cast<int>(*vector);
      w.lane_bytes = static_cast<std::uint32_t>(sizes[*vector] * f.elem_bytes);
    } else {
      vector.reset();  // unrolled into scalar accesses
    }
    const std::int64_t lane = vector ? sizes[*vector] : 1;
    for (std::size_t k = 0; k < f.dims.size(); ++k) {
      if (v_.dim(f.dims[k]).kinds != kind::UNROLL) continue;
      const std::int64_t merge = merged_accesses(affine, k, sizes[k], lane, vector);
      if (merge > w.merge) {
        w.merged = static_cast<int>(k);
        w.merge = merge;
      }
    }
    return w;
  }

  /// Lanes: the instruction's thread dimensions give each lane its address; a thread
  /// dimension smaller than its level leaves threads idle, and a store runs on one thread of
  /// each level it does not depend on. Its block and sequential dimensions move the address
  /// of the whole warp: those of its dependence loops are charged, every one is executed.
  Walk walk_of(const InstFacts& f, const std::vector<std::int64_t>& sizes,
               const std::vector<std::int64_t>& stride, const Widening& widening) const {
    Walk walk;
    LaneShape& lanes = walk.lanes;
    lanes.lane_bytes = widening.lane_bytes;
    std::array<bool, 3> own_level{false, false, false};
    for (std::uint32_t l = 0; l < 3; ++l) {
      lanes.block[l] = v_.level_size[l].lo;
      lanes.bound[l] = lanes.block[l];
    }
    for (std::size_t k = 0; k < f.dims.size(); ++k) {
      const DimView& d = v_.dim(f.dims[k]);
      if (d.kinds == kind::THREAD) {
        const int l = std::countr_zero(d.levels);
        own_level[l] = true;
        lanes.coeff[l] = stride[k];
        lanes.bound[l] = std::min(lanes.bound[l], sizes[k]);
      } else if (static_cast<int>(k) != widening.vector) {
        walk.executed.push_back({stride[k], sizes[k]});
        const std::int64_t w = static_cast<int>(k) == widening.merged ? widening.merge : 1;
        if (f.dep_dim[k] || d.kinds == kind::BLOCK) {
          walk.charged.push_back({stride[k] * w, sizes[k] / w});
        } else {
          walk.hoistable *= static_cast<double>(sizes[k]);
        }
      }
    }
    if (f.is_store) {
      for (std::uint32_t l = 0; l < 3; ++l) {
        if (!own_level[l] && lanes.block[l] > 1) lanes.bound[l] = 0;
      }
    }
    return walk;
  }

  /// A memory access's warp instructions, sectors and wavefronts: charged with ptxas's merges,
  /// executed as printed.
  void memory_cost(InstCost& c, bool shared, const Walk& walk, const Widening& widening,
                   std::int64_t constant, double other_blocks) const {
    const std::int64_t sector = static_cast<std::int64_t>(gpu_.rates.sector_bytes.value);
    const std::uint32_t banks = static_cast<std::uint32_t>(gpu_.rates.shared_banks.value);
    auto in_its_space = [&](WarpTotals t) {
      (shared ? t.sectors : t.wavefronts) = 0;
      return t;
    };
    LaneShape merged_lanes = walk.lanes;
    merged_lanes.lane_bytes *= static_cast<std::uint32_t>(widening.merge);
    c.charged_memory = in_its_space(
        scaled(warp_totals(merged_lanes, walk.charged, constant, sector, banks), other_blocks));
    if (c.facts->temporary && !shared) {
      // A module's global array is aligned to 16 bytes only: charge the cheaper placement.
      const WarpTotals moved =
          warp_totals(merged_lanes, walk.charged, constant + 16, sector, banks);
      c.charged_memory.sectors = std::min(c.charged_memory.sectors, moved.sectors * other_blocks);
    }
    c.charged = c.charged_memory.accesses;
    if (!executed_) return;
    c.executed_memory =
        in_its_space(scaled(warp_totals(walk.lanes, walk.executed, constant, sector, banks),
                            other_blocks * outside_repeats(*c.inst, *c.facts)));
    c.executed = c.executed_memory.accesses;
  }

  /// In a fully specified candidate, the iterations of the sequential loops around an
  /// instruction that are none of its own: the PTX repeats it in each.
  double outside_repeats(const backbone::Instruction& inst, const InstFacts& f) const {
    std::vector<DimId> around;
    const std::uint32_t stmt = v_.stmt(inst.id);
    for (const DimView& d : v_.dims()) {
      if (d.only(kSequential) && v_.order(d.id, stmt) == values::order::OUTER &&
          std::find(f.dims.begin(), f.dims.end(), d.id) == f.dims.end()) {
        around.push_back(d.id);
      }
    }
    return v_.product_lo(around, f.dims);
  }

  static WarpTotals scaled(WarpTotals t, double factor) {
    t.accesses *= factor;
    t.sectors *= factor;
    t.wavefronts *= factor;
    return t;
  }

  /// Barriers every block passes: one per iteration of the sequential loops around both the
  /// store and the load of each lowered temporary (codegen/barriers.cpp), when threads share it.
  void barriers() {
    double most = 0;
    for (const std::vector<DimId>& around : v_.barrier_loops()) {
      most = std::max(most, v_.product_lo(around));
    }
    out_.counts.barriers_per_block = most;
    barrier_warps_ = most * warps_lo_ * blocks_lo_;
  }

  // ----- Layer 1: the whole device -----------------------------------------------------------

  void floors() {
    for (const InstCost& c : costs_) {
      for (std::size_t k = 0; k < kInstrClasses; ++k) charged_[k] += c.per_execution[k] * c.charged;
      if (c.inst->access && sum(c.per_execution) == 0) memory_unplaced_ += c.charged;
    }
    charged_[index(InstrClass::barrier)] += barrier_warps_;
    out_.counts.charged = charged_;
    const double device = gpu_.sms * gpu_.clock;
    const double fp32 = fp32_of(charged_);
    const double fp64 = charged_[index(InstrClass::fp64)];
    const double special = charged_[index(InstrClass::special)];
    const double issued = sum(charged_) + memory_unplaced_;
    add(Term{"fp32", Level::device, fp32 / (gpu_.fp32 * device) * 1e9,
             fmt::format("{:.4g} fp32 warp instructions, {:g} per clock on each of {:g} SMs", fp32,
                         gpu_.fp32, gpu_.sms)});
    if (fp64 > 0) {
      add(Term{"fp64", Level::device, fp64 / (gpu_.fp64 * device) * 1e9,
               fmt::format("{:.4g} fp64 warp instructions", fp64)});
    }
    if (special > 0) {
      add(Term{"special", Level::device, special / (gpu_.special * device) * 1e9,
               fmt::format("{:.4g} special-function warp instructions", special)});
    }
    add(Term{"issue", Level::device, issued / (gpu_.issue * device) * 1e9,
             fmt::format("{:.4g} warp instructions, {:g} issued per clock on each SM", issued,
                         gpu_.issue)});
    // Compulsory traffic: every byte of the arrays goes through L2; what does not fit there
    // comes from DRAM (reads) or goes back to it (writes) within the run.
    const double l2_bytes = gpu_.rates.l2_bytes.value;
    double dram = 0;
    for (const bool written : {false, true}) {
      double bytes = 0;
      for (const backbone::MemRegion* mem : v_.kernel.mem_regions()) {
        if (mem->kind == backbone::MemRegion::Kind::kTemporary) continue;
        if ((mem->kind == backbone::MemRegion::Kind::kOutput) == written ||
            mem->kind == backbone::MemRegion::Kind::kInOut) {
          bytes += v_.facts.array_sectors[mem->id.value] * gpu_.rates.sector_bytes.value;
        }
      }
      dram += std::max(0.0, bytes - l2_bytes);
    }
    add(Term{"dram", Level::device, dram / gpu_.rates.dram_bandwidth.value * 1e9,
             fmt::format("{:.4g} bytes beyond what L2 ({:.3g} bytes) keeps between runs", dram,
                         l2_bytes)});
    add(Term{
        "l2", Level::device, v_.facts.compulsory_bytes / gpu_.rates.l2_bandwidth.value * 1e9,
        fmt::format("{:.4g} bytes of the arrays, each sector once", v_.facts.compulsory_bytes)});
    // A timed run is a launch, then the work: the device's rates were measured less the launch
    // floor, and no measured candidate of an H100's or an H200's searches ran in less.
    out_.launch_ns = gpu_.rates.launch_floor_ns.value;
    add(Term{"blocks", Level::device, blocks_lo_ / gpu_.rates.block_rate.value * 1e9,
             fmt::format("{:.4g} blocks started, {:.3g} per second at most", blocks_lo_,
                         gpu_.rates.block_rate.value)});
  }

  // ----- Layer 2: one SM ---------------------------------------------------------------------

  /// Warps one SM holds at once, at most: its blocks' warps, as many blocks as occupancy lets
  /// in and the grid gives it.
  double resident_warps() const {
    const double grid_share = std::ceil(blocks_hi_ / gpu_.sms);
    return warps_hi_ * std::max(1.0, std::min(occupancy_hi(), grid_share));
  }

  void pressure() {
    const double share = sm_share();
    const double warps = resident_warps();
    auto per_sm = [&](const char* resource, double work, double rate, std::string what) {
      add(Term{resource, Level::sm, share * work / (rate * gpu_.clock) * 1e9,
               fmt::format("{}, {:.3g} of them on the busiest SM, {:g} per clock", what,
                           share * work, rate)});
    };
    const double fp32 = fp32_of(charged_);
    const double issued = sum(charged_) + memory_unplaced_;
    per_sm("issue", issued, std::min(gpu_.issue, warps),
           fmt::format("{:.4g} warp instructions over {:g} warps at most", issued, warps));
    per_sm("fp32", fp32, std::min(gpu_.fp32, warps),
           fmt::format("{:.4g} fp32 warp instructions", fp32));
    const double memory = memory_of(charged_) + memory_unplaced_;
    per_sm("lsu", memory, gpu_.memory,
           fmt::format("{:.4g} load and store warp instructions", memory));
    double sectors = 0;
    double wavefronts = 0;
    for (const InstCost& cost : costs_) {
      sectors += cost.charged_memory.sectors;
      wavefronts += cost.charged_memory.wavefronts;
    }
    per_sm("l1", sectors * gpu_.rates.sector_bytes.value, gpu_.rates.l1_bytes_per_clock.value,
           fmt::format("{:.4g} global sectors through L1, in bytes", sectors));
    if (wavefronts > 0) {
      per_sm("shared", wavefronts, 1, fmt::format("{:.4g} shared-memory wavefronts", wavefronts));
    }
    for (const InstCost& cost : costs_) {
      InstructionCounts counts;
      counts.name = cost.inst->name;
      for (std::size_t k = 0; k < kInstrClasses; ++k)
        counts.charged[k] = cost.per_execution[k] * cost.charged;
      counts.executed = cost.executed;
      counts.charged_sectors = cost.charged_memory.sectors;
      counts.executed_sectors = std::max(cost.executed_memory.sectors, cost.charged_memory.sectors);
      counts.charged_wavefronts = cost.charged_memory.wavefronts;
      counts.executed_wavefronts =
          std::max(cost.executed_memory.wavefronts, cost.charged_memory.wavefronts);
      counts.exact = cost.exact && v_.fully_specified;
      counts.vector_dim = cost.vector_dim;
      counts.vector_width = cost.vector_width;
      out_.counts.instructions.push_back(std::move(counts));
    }
  }

  // ----- Layer 3: one block's latency, times the waves of blocks -----------------------------

  /// Registers per thread, at least: the accumulators of a reduction unrolled inside one of its
  /// sequential reduction loops are all live across that loop's back edge (up to what ptxas may
  /// give a thread of such a block before it spills).
  double registers_lo() const {
    double most = 0;
    for (const InstCost& c : costs_) {
      const InstFacts& f = *c.facts;
      for (DimId k : f.reduction_dims) {
        const DimView& loop = v_.dim(k);
        if (loop.kinds != kind::LOOP || loop.lo < 2) continue;
        double accumulators = 1;
        for (DimId d : f.storage_dims) {
          const DimView& s = v_.dim(d);
          if (s.only(kind::UNROLL | kind::VECTOR) && v_.order(k, s.stmt) == values::order::OUTER) {
            accumulators *= static_cast<double>(s.lo);
          }
        }
        most = std::max(most, accumulators);
      }
    }
    // A block of W warps must fit: ptxas gives a thread at most the registers file over 32 W,
    // in steps of 8 (a warp's 256-register allocation unit).
    const double cap =
        std::min(gpu_.rates.max_registers_per_thread.value,
                 8 * std::floor(gpu_.rates.registers_per_sm.value / (warps_hi_ * gpu_.warp) / 8));
    return std::min(most, cap);
  }

  /// Blocks one SM holds at once, at most.
  double occupancy_hi() const {
    const GpuRates& r = gpu_.rates;
    double blocks = r.max_blocks_per_sm.value;
    blocks = std::min(blocks, std::floor(r.max_threads_per_sm.value / gpu_.warp / warps_lo_));
    const double registers = registers_lo();
    if (registers > 0) {
      blocks = std::min(blocks,
                        std::floor(r.registers_per_sm.value / (registers * gpu_.warp * warps_lo_)));
    }
    const double shared = static_cast<double>(v_.candidate.get_shared_elements().lo) * 4;
    if (shared > 0) blocks = std::min(blocks, std::floor(r.shared_bytes_per_sm.value / shared));
    return std::max(1.0, blocks);
  }

  double latency_of(const InstCost& c) const {
    const GpuRates& r = gpu_.rates;
    switch (c.facts->latency) {
      case LatencyKind::none:
        return 0;
      case LatencyKind::fp32:
        return r.fp32_latency.value;
      case LatencyKind::fp64:
        return r.fp64_latency.value;
      case LatencyKind::special:
        return r.fp32_latency.value + r.special_latency.value;
      case LatencyKind::global_load:
      case LatencyKind::temp_load:
        return load_latency(c);
    }
    return 0;
  }

  /// A load waits for L2 when it bypasses L1 (.cg), else at least for an L1 hit; a temporary
  /// not yet placed in global memory may still be in shared memory.
  double load_latency(const InstCost& c) const {
    const GpuRates& r = gpu_.rates;
    if (c.facts->temporary &&
        v_.candidate.get_mem_space(c.inst->access->mem.value) != values::mem_space::GLOBAL) {
      return std::min(r.shared_latency.value, r.global_latency.value);
    }
    const bool bypasses_l1 =
        v_.candidate.get_cache(v_.stmt(c.inst->id)) == values::cache::CACHE_GLOBAL;
    return bypasses_l1 ? r.l2_latency.value : r.global_latency.value;
  }

  /// A reduction's chain of dependent updates in one thread: every iteration of its reduction
  /// loops, again for each iteration of the sequential loops of its own accumulators outside
  /// all of them (a warp issues in order: the next chain starts once the last update issued).
  double chain(const InstCost& c) const {
    const InstFacts& f = *c.facts;
    if (f.reduction_dims.empty()) return latency_of(c);
    std::vector<DimId> repeats;
    for (DimId d : f.storage_dims) {
      const DimView& s = v_.dim(d);
      if (s.kinds != kind::LOOP) continue;
      const bool outside =
          std::all_of(f.reduction_dims.begin(), f.reduction_dims.end(),
                      [&](DimId k) { return v_.order(d, v_.dim(k).stmt) == values::order::OUTER; });
      if (outside) repeats.push_back(d);
    }
    return latency_of(c) * f.reduction_length * v_.product_lo(repeats);
  }

  /// Sequential loops, in clocks: each iteration of a loop that stays a loop runs the chains of
  /// dependent instructions of its body again once the last iteration's instructions issued (a
  /// warp issues in order, and the PTX marks the loop nounroll, so ptxas neither unrolls it nor
  /// lifts the next iteration's instructions above this one's), and the loops that certainly
  /// enclose it (kept loops and unrolled copies) run it again for each of their iterations. An
  /// iteration lasts at least its longest chain but the last instruction's latency, which may
  /// overlap the next iteration, and one clock to issue that instruction.
  double loop_chains(const std::vector<std::vector<InstId>>& preds,
                     const std::vector<InstId>& topological) const {
    std::vector<double> latencies(v_.kernel.inst_capacity(), 0);
    for (const InstCost& c : costs_) latencies[c.inst->id.value] = latency_of(c);
    double most = 0;
    // Per instruction, the longest chain inside the loop that ends with it; -1 outside.
    std::vector<double> along(v_.kernel.inst_capacity(), -1);
    for (const DimView& d : v_.dims()) {
      if (d.kinds != kind::LOOP || d.lo < 2) continue;
      double iteration = 0;
      for (InstId id : topological) {
        double& chain = along[id.value];
        chain = -1;
        if (v_.order(d.id, v_.stmt(id)) != values::order::OUTER) continue;
        double before = 0;
        for (InstId p : preds[id.value]) before = std::max(before, along[p.value]);
        chain = before + latencies[id.value];
        iteration = std::max(iteration, before + 1);
      }
      std::vector<DimId> loops{d.id};
      for (const DimView& e : v_.dims()) {
        if (e.id != d.id && e.only(kind::LOOP | kind::UNROLL) &&
            v_.order(e.id, d.stmt) == values::order::OUTER) {
          loops.push_back(e.id);
        }
      }
      most = std::max(most, iteration * v_.product_lo(loops));
    }
    return most;
  }

  void latency() {
    // The longest chain of dependent instructions of one thread, in clocks.
    std::vector<double> longest(v_.kernel.inst_capacity(), -1);
    std::vector<std::vector<InstId>> preds(v_.kernel.inst_capacity());
    std::vector<const InstCost*> by_id(v_.kernel.inst_capacity(), nullptr);
    for (const InstCost& c : costs_) {
      by_id[c.inst->id.value] = &c;
      for (const backbone::Operand& op : c.inst->operands) {
        if (op.kind == backbone::Operand::Kind::kValue ||
            op.kind == backbone::Operand::Kind::kReduction) {
          preds[c.inst->id.value].push_back(v_.kernel.source(op).inst);
        }
      }
    }
    for (const backbone::Communication& comm : v_.kernel.comms()) {
      if (comm.lowerable() && v_.kernel.lowered(comm.id))
        preds[comm.load.value].push_back(comm.store);
    }
    std::vector<InstId> topological;  // each instruction after those it depends on
    std::function<double(InstId)> path = [&](InstId id) -> double {
      double& memo = longest[id.value];
      if (memo >= 0) return memo;
      memo = 0;  // the flow of values is acyclic
      double before = 0;
      for (InstId p : preds[id.value]) {
        if (by_id[p.value] != nullptr) before = std::max(before, path(p));
      }
      memo = before + chain(*by_id[id.value]);
      topological.push_back(id);
      return memo;
    };
    double chain_cycles = 0;
    double issue_cycles = out_.counts.barriers_per_block;  // one bar.sync per barrier
    for (const InstCost& c : costs_) {
      chain_cycles = std::max(chain_cycles, path(c.inst->id));
      issue_cycles += c.per_warp;
    }
    const double loop_cycles = loop_chains(preds, topological);
    const double barrier_cycles = out_.counts.barriers_per_block * gpu_.rates.barrier_latency.value;
    const double block = std::max({chain_cycles, loop_cycles, issue_cycles, barrier_cycles});
    const double occupancy = occupancy_hi();
    const double waves = std::ceil(blocks_lo_ / (gpu_.sms * occupancy));
    const char* what = block == chain_cycles ? "its longest chain of dependent instructions"
                       : block == loop_cycles
                           ? "the chains of dependent instructions of its sequential loops' "
                             "iterations, one after another"
                       : block == issue_cycles ? "one warp's instructions, one per clock"
                                               : "its barriers";
    add(Term{"latency", Level::block, waves * gpu_.ns(block),
             fmt::format("{:g} waves of at most {:g} blocks per SM, each {:.4g} clocks: {}", waves,
                         occupancy, block, what)});
  }

  void add(Term term) { out_.terms.push_back(std::move(term)); }

  const CandidateView& v_;
  Gpu gpu_;
  Layers layers_;
  bool executed_;
  Bound& out_;
  std::vector<InstCost> costs_;
  ClassCounts charged_{};
  double memory_unplaced_ = 0;  // accesses of temporaries not yet placed in a memory space
  double barrier_warps_ = 0;
  double blocks_lo_ = 1, blocks_hi_ = 1;
  bool blocks_fixed_ = false;
  double threads_lo_ = 1, threads_hi_ = 1, warps_lo_ = 1, warps_hi_ = 1;
};

}  // namespace

void gpu_bound(const CandidateView& view, const GpuRates& rates, Layers layers, Counting counting,
               Bound& out) {
  GpuBound(view, rates, layers, counting, out).run();
}

}  // namespace sculpt::perf_model
