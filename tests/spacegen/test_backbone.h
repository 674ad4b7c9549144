#pragma once
// A small fake backbone for spacegen's tests: statements (instructions and dimensions share
// one dense id space), memory blocks, logical dimensions with their tile dimensions (a
// parametric set), and a lowering that adds an instruction. Capacities leave room for the
// objects lowerings add.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace sculpt::spacegen::test {

enum class StmtKind { Inst, Dim };

struct Stmt {
  std::uint32_t id = 0;
  StmtKind kind = StmtKind::Inst;
  std::vector<std::int64_t> sizes;  // dimensions: the possible sizes
  std::uint32_t logical = ~0u;      // dimensions: the logical dimension they tile
  bool flag = false;                // a static property host conditions test
  std::int64_t weight = 1;          // a host value counters add
  bool lowered = false;             // added by a lowering
  const Stmt* as_dim() const { return kind == StmtKind::Dim ? this : nullptr; }
  const Stmt* as_inst() const { return kind == StmtKind::Inst ? this : nullptr; }
};

/// A strongly typed id, as the real backbone uses: spacegen reads its `.value`.
struct MemId {
  explicit MemId(std::uint32_t v) : value(v) {}
  std::uint32_t value;
};

struct MemBlock {
  MemId id{0};
  std::int64_t size = 0;
};

struct LogicalDim {
  std::uint32_t id = 0;
};

class Backbone {
 public:
  explicit Backbone(std::uint32_t capacity = 16) : capacity_(capacity) { stmts_.reserve(capacity); }
  Backbone(const Backbone& other) : capacity_(other.capacity_) {
    stmts_.reserve(capacity_);
    stmts_ = other.stmts_;
    mems_ = other.mems_;
    logicals_ = other.logicals_;
    lowerings = other.lowerings;
    marked = other.marked;
    reserved_insts = other.reserved_insts;
    lowered_queries = other.lowered_queries;
  }
  Backbone& operator=(const Backbone&) = delete;

  Stmt& add_inst(bool flag = false, std::int64_t weight = 1) {
    Stmt s;
    s.id = static_cast<std::uint32_t>(stmts_.size());
    s.flag = flag;
    s.weight = weight;
    stmts_.push_back(s);
    return stmts_.back();
  }
  Stmt& add_dim(std::vector<std::int64_t> sizes, std::uint32_t logical = ~0u, bool flag = false) {
    Stmt s;
    s.id = static_cast<std::uint32_t>(stmts_.size());
    s.kind = StmtKind::Dim;
    s.sizes = std::move(sizes);
    s.logical = logical;
    s.flag = flag;
    stmts_.push_back(s);
    return stmts_.back();
  }
  MemBlock& add_mem(std::int64_t size) {
    mems_.push_back({MemId(static_cast<std::uint32_t>(mems_.size())), size});
    return mems_.back();
  }
  LogicalDim& add_logical() {
    logicals_.push_back({static_cast<std::uint32_t>(logicals_.size())});
    return logicals_.back();
  }

  std::uint32_t capacity() const { return capacity_; }
  std::vector<const Stmt*> statements() const {
    return filter([](const Stmt&) { return true; });
  }
  std::vector<const Stmt*> insts() const {
    return filter([](const Stmt& s) { return s.kind == StmtKind::Inst; });
  }
  std::vector<const Stmt*> dims() const {
    return filter([](const Stmt& s) { return s.kind == StmtKind::Dim; });
  }
  std::vector<const Stmt*> flag_dims() const {
    return filter([](const Stmt& s) { return s.kind == StmtKind::Dim && s.flag; });
  }
  const Stmt* statement(std::uint32_t id) const { return &stmts_[id]; }
  /// The ids an instruction may ever have (`all_ids` of Insts in sets_all_ids.space): the
  /// present ones and the next `reserved_insts`, where lowerings add theirs.
  std::vector<std::uint32_t> inst_ids() const {
    std::vector<std::uint32_t> out;
    for (const Stmt* s : insts()) out.push_back(s->id);
    for (std::uint32_t i = 0; i < reserved_insts; ++i) {
      out.push_back(static_cast<std::uint32_t>(stmts_.size()) + i);
    }
    return out;
  }
  /// The ids of the dimensions, which no lowering adds (`all_ids` of Dims).
  std::vector<std::uint32_t> dim_ids() const {
    std::vector<std::uint32_t> out;
    for (const Stmt* s : dims()) out.push_back(s->id);
    return out;
  }
  std::vector<const MemBlock*> mem_blocks() const {
    std::vector<const MemBlock*> out;
    for (const MemBlock& m : mems_) out.push_back(&m);
    return out;
  }
  const MemBlock* mem_block(MemId id) const { return &mems_[id.value]; }
  std::vector<const LogicalDim*> logical_dims() const {
    std::vector<const LogicalDim*> out;
    for (const LogicalDim& l : logicals_) out.push_back(&l);
    return out;
  }
  const LogicalDim* logical_dim(std::uint32_t id) const { return &logicals_[id]; }
  std::vector<const Stmt*> tile_dims(const LogicalDim* l) const {
    return filter([&](const Stmt& s) { return s.kind == StmtKind::Dim && s.logical == l->id; });
  }
  std::vector<const LogicalDim*> logicals_of(const Stmt* d) const {
    std::vector<const LogicalDim*> out;
    if (d->logical != ~0u) out.push_back(&logicals_[d->logical]);
    return out;
  }

  /// The lowering of the tests' triggers: adds an instruction (flagged as lowered).
  int lower(const Stmt* a, const Stmt* b) {
    (void)a;
    (void)b;
    Stmt& s = add_inst();
    s.lowered = true;
    return ++lowerings;
  }
  /// The same without objects, for triggers with no variable.
  int lower_global() {
    Stmt& s = add_inst();
    s.lowered = true;
    return ++lowerings;
  }

  /// A host condition that counts its evaluations.
  bool is_lowered(const Stmt* s) const {
    ++lowered_queries;
    return s->lowered;
  }

  /// A quotient's `add_to_set`: records the new representative.
  int mark(const Stmt* s) {
    marked.push_back(s->id);
    return 0;
  }

  int lowerings = 0;
  std::vector<std::uint32_t> marked;
  std::uint32_t reserved_insts = 0;
  mutable int lowered_queries = 0;

 private:
  template <typename F>
  std::vector<const Stmt*> filter(F&& f) const {
    std::vector<const Stmt*> out;
    for (const Stmt& s : stmts_) {
      if (f(s)) out.push_back(&s);
    }
    return out;
  }

  std::uint32_t capacity_;
  std::vector<Stmt> stmts_;
  std::vector<MemBlock> mems_;
  std::vector<LogicalDim> logicals_;
};

}  // namespace sculpt::spacegen::test
