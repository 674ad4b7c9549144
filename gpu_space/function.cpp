#include "gpu_space/function.h"

#include <algorithm>
#include <numeric>

#include "support/check.h"

namespace sculpt::gpu_space {

using backbone::Dimension;
using backbone::DimId;
using backbone::DimMapping;
using backbone::DimMappingId;
using backbone::InstId;
using backbone::Instruction;
using backbone::Kernel;
using backbone::LoopId;
using backbone::Operand;

namespace {

/// A square table of booleans over dense ids.
class Relation {
 public:
  Relation(std::size_t rows, std::size_t cols) : cols_(cols), bits_(rows * cols, 0) {}
  bool operator()(std::size_t row, std::size_t col) const { return bits_[row * cols_ + col]; }
  void set(std::size_t row, std::size_t col) { bits_[row * cols_ + col] = 1; }

 private:
  std::size_t cols_;
  std::vector<std::uint8_t> bits_;
};

/// Every dimension, those of loops that lowerings add later included.
std::vector<const Dimension*> all_dims(const Kernel& kernel) {
  std::vector<const Dimension*> dims;
  for (std::uint32_t d = 0; d < kernel.dim_capacity(); ++d) dims.push_back(&kernel.dim(DimId(d)));
  return dims;
}

bool contains(const std::vector<LoopId>& loops, LoopId loop) {
  return std::find(loops.begin(), loops.end(), loop) != loops.end();
}

/// The reduction operand of an instruction, if it has one.
const Operand* reduction_operand(const Instruction& inst) {
  for (const Operand& op : inst.operands) {
    if (op.kind == Operand::Kind::kReduction) return &op;
  }
  return nullptr;
}

/// Largest power of two (at most `limit`) dividing every value.
std::int64_t power_of_two_dividing(const std::vector<std::int64_t>& values, std::int64_t limit) {
  std::int64_t g = 0;
  for (std::int64_t v : values) g = std::gcd(g, v);
  std::int64_t w = limit;
  while (w > 1 && g % w != 0) w /= 2;
  return w;
}

}  // namespace

struct KernelFacts {
  DeviceDescription device;
  backbone::Dependences deps;
  std::array<ThreadLevel, 3> levels;
  Relation owns;                // [inst][dim]: the dim is one of the instruction's loops
  Relation stores_by;           // [inst][dim]: the dim indexes the instruction's value
  Relation reduces;             // [inst][dim]: the dim is a reduction dim of the instruction
  Relation precedes;            // [inst][inst]
  Relation reads_reduced;       // [reader][dim]: reader reads a reduction's value, dim reduces it
  Relation init_inside;         // [dim][inst]: the dim reduces what the instruction initialises
  Relation mergeable;           // [dim][dim]
  Relation merge_carries;       // [dim][dim]
  Relation nests;               // [outer dim][inner dim]
  Relation share_instruction;   // [dim][dim]: some instruction iterates on both
  std::vector<InstId> init_of;  // by instruction: the init of its reduction, or none
  std::vector<std::vector<InstId>> reductions_by_init;  // by instruction: reductions it inits
  std::vector<std::vector<DimId>> reduction_loop_dims;  // by instruction: dims of a reduction
  std::vector<std::vector<InstId>> reductions_over;     // by dim: reductions iterating on it
  std::vector<bool> is_init;                            // by instruction: initialises a reduction
  std::vector<std::int64_t> vector_width;               // by dim
  std::vector<std::vector<DimMappingId>> mappings_from, mappings_to;  // by dim
  std::vector<std::vector<std::int64_t>> tile_products;               // by logical dim
  std::int64_t shared_element_limit = 0;

  KernelFacts(const Kernel& kernel, DeviceDescription description)
      : device(std::move(description)),
        deps(backbone::compute_dependences(kernel)),
        levels{ThreadLevel{0, "x", device.max_thread_level_size[0]},
               ThreadLevel{1, "y", device.max_thread_level_size[1]},
               ThreadLevel{2, "z", device.max_thread_level_size[2]}},
        owns(kernel.inst_capacity(), kernel.dim_capacity()),
        stores_by(kernel.inst_capacity(), kernel.dim_capacity()),
        reduces(kernel.inst_capacity(), kernel.dim_capacity()),
        precedes(kernel.inst_capacity(), kernel.inst_capacity()),
        reads_reduced(kernel.inst_capacity(), kernel.dim_capacity()),
        init_inside(kernel.dim_capacity(), kernel.inst_capacity()),
        mergeable(kernel.dim_capacity(), kernel.dim_capacity()),
        merge_carries(kernel.dim_capacity(), kernel.dim_capacity()),
        nests(kernel.dim_capacity(), kernel.dim_capacity()),
        share_instruction(kernel.dim_capacity(), kernel.dim_capacity()),
        init_of(kernel.inst_capacity()),
        reductions_by_init(kernel.inst_capacity()),
        reduction_loop_dims(kernel.inst_capacity()),
        reductions_over(kernel.dim_capacity()),
        is_init(kernel.inst_capacity(), false),
        vector_width(kernel.dim_capacity(), 1),
        mappings_from(kernel.dim_capacity()),
        mappings_to(kernel.dim_capacity()) {
    const std::uint32_t insts = kernel.inst_capacity();
    // Loops and reductions of every instruction, pre-allocated ones included.
    for (std::uint32_t i = 0; i < insts; ++i) {
      const Instruction& inst = kernel.inst(InstId(i));
      const std::vector<LoopId> storage = kernel.storage_loops(inst.id);
      for (const Dimension* d : all_dims(kernel)) {
        if (contains(inst.loops, d->loop)) owns.set(i, d->id.value);
        if (contains(storage, d->loop)) stores_by.set(i, d->id.value);
      }
      if (const Operand* op = reduction_operand(inst)) {
        init_of[i] = op->inst;
        is_init[op->inst.value] = true;
        reductions_by_init[op->inst.value].push_back(inst.id);
        for (DimId d : kernel.dims_of(inst.id)) {
          reduction_loop_dims[i].push_back(d);
          reductions_over[d.value].push_back(inst.id);
        }
        for (LoopId loop : op->reduction_loops) {
          for (DimId d : kernel.loop(loop).dims()) {
            reduces.set(i, d.value);
            init_inside.set(d.value, op->inst.value);
          }
        }
      }
    }
    // Precedence: isl's ordered pairs, every value read, and the path through a temporary.
    for (const auto& [before, after] : deps.ordered) precedes.set(before.value, after.value);
    for (std::uint32_t i = 0; i < insts; ++i) {
      for (const Operand& op : kernel.inst(InstId(i)).operands) {
        const bool reads = op.kind == Operand::Kind::kValue || op.kind == Operand::Kind::kReduction;
        if (reads && op.inst.valid() && op.inst.value != i) precedes.set(op.inst.value, i);
      }
    }
    for (const backbone::Communication& comm : kernel.comms()) {
      if (!comm.lowerable()) continue;
      precedes.set(comm.producer.value, comm.store.value);
      precedes.set(comm.store.value, comm.load.value);
      precedes.set(comm.load.value, comm.consumer.value);
    }
    // Readers of a reduction's value stay outside its reduction dims.
    for (std::uint32_t i = 0; i < insts; ++i) {
      for (const Operand& op : kernel.inst(InstId(i)).operands) {
        if (op.kind != Operand::Kind::kValue || !init_of[op.inst.value].valid()) continue;
        for (const Dimension* d : all_dims(kernel)) {
          if (reduces(op.inst.value, d->id.value)) reads_reduced.set(i, d->id.value);
        }
      }
    }
    // Dimension pairs.
    for (const Dimension* a : all_dims(kernel)) {
      for (const Dimension* b : all_dims(kernel)) {
        if (a == b) continue;
        if (a->logical == b->logical && a->level == b->level && a->loop != b->loop &&
            deps.can_merge(a->id, b->id)) {
          mergeable.set(a->id.value, b->id.value);
        }
      }
    }
    for (const auto& [a, b] : deps.merge_carries) {
      merge_carries.set(a.value, b.value);
      merge_carries.set(b.value, a.value);
    }
    for (const auto& [outer, inner] : deps.must_nest) nests.set(outer.value, inner.value);
    for (std::uint32_t i = 0; i < insts; ++i) {
      for (DimId a : kernel.dims_of(InstId(i))) {
        for (DimId b : kernel.dims_of(InstId(i))) share_instruction.set(a.value, b.value);
      }
    }
    for (std::uint32_t id = 0; id < kernel.mapping_capacity(); ++id) {
      const DimMapping& m = kernel.mapping(DimMappingId(id));
      mappings_from[m.src.value].push_back(m.id);
      mappings_to[m.dst.value].push_back(m.id);
    }
    compute_vector_widths(kernel);
    for (const backbone::LogicalDim* l : kernel.logical_dims()) {
      std::vector<std::int64_t> products{1};
      for (const std::vector<std::int64_t>& level : l->tile_sizes) {
        std::vector<std::int64_t> next;
        for (std::int64_t p : products) {
          for (std::int64_t s : level) {
            if (l->size % (p * s) == 0) next.push_back(p * s);
          }
        }
        std::sort(next.begin(), next.end());
        next.erase(std::unique(next.begin(), next.end()), next.end());
        products = std::move(next);
      }
      tile_products.push_back(std::move(products));
    }
    std::int64_t widest = 4;
    std::int64_t temps = 0;
    for (std::uint32_t m = 0; m < kernel.mem_capacity(); ++m) {
      const backbone::MemRegion& mem = kernel.mem(backbone::MemId(m));
      if (mem.kind == backbone::MemRegion::Kind::kTemporary) {
        widest = std::max(widest, backbone::elem_type_bytes(mem.type));
        ++temps;
      }
    }
    // Each shared temporary starts 16-byte aligned (codegen's layout): keep room for padding.
    shared_element_limit = (device.shared_mem_per_block - 16 * temps) / widest;
  }

  /// The widest vector access along each static innermost tile dimension: 16 bytes over the
  /// element size, narrowed so that every access to an array of the kernel that moves along
  /// the dimension is contiguous (stride 1) and aligned (every other coefficient, and the
  /// constant offset, a multiple of the width). Accesses that do not move along it are
  /// broadcast, and temporaries are laid out by the code generator.
  void compute_vector_widths(const Kernel& kernel) {
    for (const Dimension* d : all_dims(kernel)) {
      const backbone::Loop& loop = kernel.loop(d->loop);
      if (!d->is_static() || d->id != loop.tile_dims.back()) continue;
      std::int64_t width = 4;
      for (std::uint32_t i = 0; i < kernel.inst_capacity(); ++i) {
        const Instruction* inst = &kernel.inst(InstId(i));
        if (!contains(inst->loops, d->loop)) continue;
        width = std::min(width, 16 / backbone::elem_type_bytes(inst->type));
        const bool temporary = inst->access && kernel.mem(inst->access->mem).kind ==
                                                   backbone::MemRegion::Kind::kTemporary;
        if (!inst->access || temporary) continue;
        std::int64_t along = 0;
        std::vector<std::int64_t> others{inst->access->index.constant};
        for (const backbone::AffineTerm& term : inst->access->index.terms) {
          if (term.logical == d->logical) {
            along += term.coeff;
          } else {
            others.push_back(term.coeff);
          }
        }
        if (along == 0) continue;
        width = along == 1 ? power_of_two_dividing(others, width) : 1;
      }
      vector_width[d->id.value] = width;
    }
  }
};

Function::Function(backbone::Kernel kernel, DeviceDescription device)
    : kernel_(std::move(kernel)),
      facts_(std::make_shared<const KernelFacts>(kernel_, std::move(device))) {}

const DeviceDescription& Function::device() const { return facts_->device; }
const backbone::Dependences& Function::dependences() const { return facts_->deps; }
std::span<const ThreadLevel> Function::levels() const { return facts_->levels; }

std::span<const DimMappingId> Function::mappings_from_ids(const Dimension* d) const {
  return facts_->mappings_from[d->id.value];
}
std::span<const DimMappingId> Function::mappings_to_ids(const Dimension* d) const {
  return facts_->mappings_to[d->id.value];
}

bool Function::is_temp_mapping(const backbone::MemRegion* mem, const DimMapping* m) const {
  const backbone::Communication& comm = kernel_.comm(m->comm);
  return comm.lowerable() && comm.temp == mem->id;
}

const std::vector<std::int64_t>& Function::tile_products(const backbone::LogicalDim* l) const {
  return facts_->tile_products[l->id.value];
}

bool Function::is_parallel(const Dimension* d) const {
  return facts_->deps.dim_kind(d->id) == backbone::LoopKind::kParallel;
}

bool Function::can_vectorize(const Dimension* d) const {
  return d->is_static() && is_parallel(d) && max_vector_width(d) >= 2;
}

std::int64_t Function::max_vector_width(const Dimension* d) const {
  return facts_->vector_width[d->id.value];
}

bool Function::same_tile_level(const Dimension* a, const Dimension* b) const {
  return a->logical == b->logical && a->level == b->level;
}

bool Function::share_instruction(const Dimension* a, const Dimension* b) const {
  return facts_->share_instruction(a->id.value, b->id.value);
}

bool Function::owns(const Dimension* d, const backbone::Statement* s) const {
  const Instruction* inst = s->as_inst();
  return inst != nullptr && facts_->owns(inst->id.value, d->id.value);
}

bool Function::can_merge(const Dimension* a, const Dimension* b) const {
  return facts_->mergeable(a->id.value, b->id.value);
}

bool Function::merge_carries(const Dimension* a, const Dimension* b) const {
  return facts_->merge_carries(a->id.value, b->id.value);
}

bool Function::must_precede(const Instruction* a, const Instruction* b) const {
  return facts_->precedes(a->id.value, b->id.value);
}

bool Function::must_nest(const Dimension* outer, const Dimension* inner) const {
  return facts_->nests(outer->id.value, inner->id.value);
}

bool Function::reduces_after_init(const Dimension* d, const Instruction* init) const {
  return facts_->init_inside(d->id.value, init->id.value);
}

bool Function::repeats_reduction(const Dimension* x, const Instruction* r,
                                 const Instruction* init) const {
  if (facts_->init_of[r->id.value] != init->id || facts_->owns(r->id.value, x->id.value)) {
    return false;
  }
  for (const Dimension* own : all_dims(kernel_)) {
    if (facts_->owns(r->id.value, own->id.value) && can_merge(x, own)) return false;
  }
  return true;
}

std::span<const InstId> Function::reduction_init_ids(const Instruction* r) const {
  const InstId& init = facts_->init_of[r->id.value];
  return {&init, init.valid() ? 1u : 0u};
}

std::span<const InstId> Function::reductions_initialised_by_ids(const Instruction* init) const {
  return facts_->reductions_by_init[init->id.value];
}

std::span<const DimId> Function::reduction_loop_dim_ids(const Instruction* r) const {
  return facts_->reduction_loop_dims[r->id.value];
}

std::span<const InstId> Function::reductions_over_ids(const Dimension* d) const {
  return facts_->reductions_over[d->id.value];
}

bool Function::may_repeat_reduction(const Dimension* x, const Dimension* own, const Instruction* r,
                                    const Instruction* init) const {
  return facts_->init_of[r->id.value] == init->id && !facts_->owns(r->id.value, x->id.value) &&
         facts_->owns(r->id.value, own->id.value) && can_merge(x, own);
}

bool Function::reads_reduction_over(const Instruction* reader, const Dimension* d) const {
  return facts_->reads_reduced(reader->id.value, d->id.value);
}

bool Function::lowerable(const DimMapping* m) const { return kernel_.comm(m->comm).lowerable(); }

bool Function::same_communication(const DimMapping* a, const DimMapping* b) const {
  return a->comm == b->comm;
}

bool Function::is_static_mapping(const DimMapping* m) const {
  return kernel_.dim(m->src).is_static();
}

bool Function::is_read_only_load(const Instruction* i) const {
  return i->op == backbone::Operator::kLoad &&
         kernel_.mem(i->access->mem).kind == backbone::MemRegion::Kind::kInput;
}

bool Function::accesses(const Instruction* i, const backbone::MemRegion* mem) const {
  return i->access && i->access->mem == mem->id;
}

bool Function::indexes_value(const Dimension* d, const Instruction* i) const {
  return facts_->stores_by(i->id.value, d->id.value);
}

bool Function::holds_registers(const Instruction* i) const {
  return i->has_value() && !facts_->is_init[i->id.value];
}

std::int64_t Function::shared_element_limit() const { return facts_->shared_element_limit; }

int Function::lower_communication(const DimMapping* m) {
  kernel_.lower_communication(m->id);
  return 0;
}

}  // namespace sculpt::gpu_space
