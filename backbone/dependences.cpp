#include "backbone/dependences.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "backbone/isl_wrap.h"
#include "support/check.h"

namespace sculpt::backbone {

std::string_view loop_kind_name(LoopKind kind) {
  switch (kind) {
    case LoopKind::kParallel:
      return "parallel";
    case LoopKind::kReduction:
      return "reduction";
    case LoopKind::kSequential:
      return "sequential";
  }
  return "?";
}

namespace {
const char* kind_name(DepKind kind) {
  switch (kind) {
    case DepKind::kFlow:
      return "flow";
    case DepKind::kAnti:
      return "anti";
    case DepKind::kOutput:
      return "output";
  }
  return "?";
}

}  // namespace

bool Dependences::must_order(InstId before, InstId after) const {
  return std::binary_search(ordered.begin(), ordered.end(), std::pair(before, after));
}

bool Dependences::can_merge(DimId a, DimId b) const {
  const std::pair<DimId, DimId> pair(std::min(a, b), std::max(a, b));
  return !std::binary_search(no_merge.begin(), no_merge.end(), pair);
}

std::string Dependences::to_string(const Kernel& kernel) const {
  std::ostringstream out;
  for (const Loop& loop : kernel.loops()) {
    out << "loop L" << loop.id.value << " (" << kernel.logical_dim(loop.logical).name
        << "): " << loop_kind_name(loop_kinds[loop.id.value]) << "\n";
  }
  for (const auto& [before, after] : ordered) {
    out << "order " << kernel.inst(before).name << " before " << kernel.inst(after).name << "\n";
  }
  for (const auto& [a, b] : no_merge) {
    out << "no merge " << kernel.dim(a).name << " " << kernel.dim(b).name << "\n";
  }
  for (const auto& [a, b] : merge_carries) {
    out << "merged carries " << kernel.dim(a).name << " " << kernel.dim(b).name << "\n";
  }
  for (const auto& [outer, inner] : must_nest) {
    out << "nest " << kernel.dim(inner).name << " inside " << kernel.dim(outer).name << "\n";
  }
  for (const Dependence& dep : all) {
    out << kind_name(dep.kind) << " " << kernel.inst(dep.src).name << " -> "
        << kernel.inst(dep.dst).name << " through " << dep.array << ": " << dep.relation << "\n";
  }
  return out.str();
}

namespace {

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

std::string statement_name(InstId id) { return "S" + std::to_string(id.value); }
std::string loop_var(LoopId loop) { return "i" + std::to_string(loop.value); }
std::string value_array(InstId id) { return "V" + std::to_string(id.value); }

// A dependence found by isl, before its interpretation.
struct RawDependence {
  Dependence dep;
  isl::Map map;
};

// Builds the polyhedral model of the default program and derives the dependences from it.
class Analysis {
 public:
  explicit Analysis(const Kernel& kernel) : kernel_(kernel) {
    for (const Instruction* inst : kernel.instructions()) insts_.push_back(inst);
    depth_ = 0;
    for (const Instruction* inst : insts_) depth_ = std::max(depth_, inst->loops.size());
    schedule_prefix(kernel.body(), {});
    for (const Instruction* inst : insts_) add_accesses(*inst);
  }

  Dependences run() {
    std::vector<std::string> domains;
    for (const Instruction* inst : insts_) domains.push_back(domain(*inst));
    const isl::UnionSet domain_set = ctx_.union_set("{ " + join(domains, "; ") + " }");
    const isl::UnionMap schedule = ctx_.union_map("{ " + join(schedule_, "; ") + " }");

    std::set<std::string> arrays;
    for (const auto& entry : reads_) arrays.insert(entry.first);
    for (const auto& entry : writes_) arrays.insert(entry.first);
    std::vector<RawDependence> raw;
    for (const std::string& array : arrays) {
      if (writes_.count(array) == 0) continue;  // read-only: no dependence
      const isl::UnionMap reads = accesses(reads_, array, domain_set);
      const isl::UnionMap writes = accesses(writes_, array, domain_set);
      if (reads_.count(array)) {
        collect(flow(reads, writes, {}, schedule), DepKind::kFlow, array, raw);
        collect(flow(writes, {}, reads, schedule), DepKind::kAnti, array, raw);
      }
      collect(flow(writes, writes, {}, schedule), DepKind::kOutput, array, raw);
    }
    return interpret(raw);
  }

 private:
  // 2d+1 schedule: the position in each body, interleaved with the loop indices.
  void schedule_prefix(const std::vector<ProgramNode>& body,
                       const std::vector<std::string>& prefix) {
    for (size_t position = 0; position < body.size(); ++position) {
      std::vector<std::string> here = prefix;
      here.push_back(std::to_string(position));
      const ProgramNode& node = body[position];
      if (node.loop) {
        here.push_back(loop_var(*node.loop));
        schedule_prefix(kernel_.body(*node.loop), here);
        continue;
      }
      const Instruction& inst = kernel_.inst(*node.inst);
      while (here.size() < 2 * depth_ + 1) here.push_back("0");
      schedule_.push_back(tuple(inst) + " -> [" + join(here, ", ") + "]");
    }
  }

  std::string tuple(const Instruction& inst) const {
    std::vector<std::string> vars;
    for (LoopId loop : inst.loops) vars.push_back(loop_var(loop));
    return statement_name(inst.id) + "[" + join(vars, ", ") + "]";
  }

  std::string domain(const Instruction& inst) const {
    std::vector<std::string> bounds;
    for (LoopId loop : inst.loops) {
      bounds.push_back("0 <= " + loop_var(loop) + " < " +
                       std::to_string(kernel_.logical_dim(kernel_.loop(loop).logical).size));
    }
    return tuple(inst) + (bounds.empty() ? "" : " : " + join(bounds, " and "));
  }

  std::string affine(const Instruction& inst, const AffineExpr& expr) const {
    std::string out = std::to_string(expr.constant);
    for (const AffineTerm& term : expr.terms) {
      const std::optional<LoopId> loop = kernel_.loop_of(inst.id, term.logical);
      SCULPT_CHECK(loop) << inst.name << " indexes by a dimension it is not nested in";
      out += " + " + std::to_string(term.coeff) + "*" + loop_var(*loop);
    }
    return out;
  }

  void add_value_read(const Instruction& reader, InstId producer, CommId comm,
                      const std::string& condition) {
    std::vector<std::string> index;
    for (LoopId loop : kernel_.value_index_loops(producer, reader.id, comm)) {
      index.push_back(loop_var(loop));
    }
    reads_[value_array(producer)].push_back(tuple(reader) + " -> " + value_array(producer) + "[" +
                                            join(index, ", ") + "]" + condition);
  }

  void add_accesses(const Instruction& inst) {
    if (inst.access) {
      const std::string array = "M" + std::to_string(inst.access->mem.value);
      auto& table = inst.op == Operator::kStore ? writes_ : reads_;
      table[array].push_back(tuple(inst) + " -> " + array + "[" + affine(inst, inst.access->index) +
                             "]");
    }
    if (inst.has_value()) {
      std::vector<std::string> index;
      for (LoopId loop : kernel_.storage_loops(inst.id)) index.push_back(loop_var(loop));
      writes_[value_array(inst.id)].push_back(tuple(inst) + " -> " + value_array(inst.id) + "[" +
                                              join(index, ", ") + "]");
    }
    for (const Operand& operand : inst.operands) {
      if (operand.kind == Operand::Kind::kValue) {
        const Kernel::Source source = kernel_.source(operand);
        add_value_read(inst, source.inst, source.comm, "");
      }
      if (operand.kind != Operand::Kind::kReduction) continue;
      // The init at the first reduced iteration, the accumulator at the others.
      std::vector<std::string> first;
      for (LoopId loop : operand.reduction_loops) {
        first.push_back(loop_var(loop) + " = 0");
        add_value_read(inst, inst.id, CommId(), " : " + loop_var(loop) + " >= 1");
      }
      add_value_read(inst, operand.inst, operand.comm, " : " + join(first, " and "));
    }
  }

  isl::UnionMap accesses(const std::map<std::string, std::vector<std::string>>& table,
                         const std::string& array, const isl::UnionSet& domain_set) const {
    auto it = table.find(array);
    const std::string text = it == table.end() ? "{ }" : "{ " + join(it->second, "; ") + " }";
    return isl::UnionMap(
        isl_union_map_intersect_domain(ctx_.union_map(text).release(), domain_set.copy()));
  }

  isl::UnionMap flow(const isl::UnionMap& sink, const isl::UnionMap& must_source,
                     const isl::UnionMap& may_source, const isl::UnionMap& schedule) const {
    isl_union_access_info* info = isl_union_access_info_from_sink(sink.copy());
    if (must_source) info = isl_union_access_info_set_must_source(info, must_source.copy());
    if (may_source) info = isl_union_access_info_set_may_source(info, may_source.copy());
    info = isl_union_access_info_set_schedule_map(info, schedule.copy());
    const isl::UnionFlow result(isl_union_access_info_compute_flow(info));
    return isl::UnionMap(isl_union_flow_get_may_dependence(result.get()));
  }

  void collect(const isl::UnionMap& deps, DepKind kind, const std::string& array,
               std::vector<RawDependence>& raw) const {
    struct Context {
      const Analysis* self;
      DepKind kind;
      const std::string* array;
      std::vector<RawDependence>* raw;
    } context{this, kind, &array, &raw};
    isl_union_map_foreach_map(
        deps.get(),
        [](isl_map* map, void* user) {
          auto& c = *static_cast<Context*>(user);
          isl::Map owned(map);
          RawDependence dep;
          dep.dep.kind = c.kind;
          dep.dep.src = InstId(std::stoul(isl_map_get_tuple_name(map, isl_dim_in) + 1));
          dep.dep.dst = InstId(std::stoul(isl_map_get_tuple_name(map, isl_dim_out) + 1));
          dep.dep.array = c.self->display_name(*c.array);
          dep.dep.relation = isl::to_string(owned);
          dep.map = std::move(owned);
          c.raw->push_back(std::move(dep));
          return isl_stat_ok;
        },
        &context);
  }

  // "M3" is memory region 3, "V5" the value of instruction 5.
  std::string display_name(const std::string& array) const {
    const uint32_t id = static_cast<uint32_t>(std::stoul(array.substr(1)));
    if (array[0] == 'M') return kernel_.mem(MemId(id)).name;
    return "value of " + kernel_.inst(InstId(id)).name;
  }

  // Whether `map` has a pair of iterations meeting `conditions` (over a0.. for the source's
  // loops, b0.. for the destination's).
  bool any(const isl::Map& map, const Instruction& src, const Instruction& dst,
           const std::vector<std::string>& conditions) const {
    std::vector<std::string> in, out;
    for (size_t i = 0; i < src.loops.size(); ++i) in.push_back("a" + std::to_string(i));
    for (size_t i = 0; i < dst.loops.size(); ++i) out.push_back("b" + std::to_string(i));
    const std::string text = "{ " + statement_name(src.id) + "[" + join(in, ", ") + "] -> " +
                             statement_name(dst.id) + "[" + join(out, ", ") + "]" +
                             (conditions.empty() ? "" : " : " + join(conditions, " and ")) + " }";
    const isl::Map both(isl_map_intersect(map.copy(), ctx_.map(text).release()));
    return isl_map_is_empty(both.get()) == isl_bool_false;
  }

  static std::string position(const char* side, size_t index) {
    return side + std::to_string(index);
  }

  static std::vector<std::string> equal_up_to(size_t count) {
    std::vector<std::string> conditions;
    for (size_t q = 0; q < count; ++q) {
      conditions.push_back(position("b", q) + " = " + position("a", q));
    }
    return conditions;
  }

  Dependences interpret(const std::vector<RawDependence>& raw) const {
    Dependences result;
    std::vector<std::vector<size_t>> carried(kernel_.loop_capacity());  // dependence indices
    std::set<std::pair<InstId, InstId>> ordered;
    std::set<std::pair<LoopId, LoopId>> no_merge;
    std::set<std::pair<LoopId, LoopId>> merge_carries;
    std::set<std::pair<LoopId, LoopId>> must_nest;
    for (size_t d = 0; d < raw.size(); ++d) {
      const Dependence& dep = raw[d].dep;
      const Instruction& src = kernel_.inst(dep.src);
      const Instruction& dst = kernel_.inst(dep.dst);
      size_t shared = 0;
      while (shared < src.loops.size() && shared < dst.loops.size() &&
             src.loops[shared] == dst.loops[shared]) {
        ++shared;
      }
      for (size_t p = 0; p < shared; ++p) {
        std::vector<std::string> differ = equal_up_to(p);
        differ.push_back("(" + position("b", p) + " > " + position("a", p) + " or " +
                         position("b", p) + " < " + position("a", p) + ")");
        if (any(raw[d].map, src, dst, differ)) carried[src.loops[p].value].push_back(d);
        for (size_t q = p + 1; q < shared; ++q) {
          std::vector<std::string> reversed = equal_up_to(p);
          reversed.push_back(position("b", p) + " > " + position("a", p));
          reversed.push_back(position("b", q) + " < " + position("a", q));
          if (any(raw[d].map, src, dst, reversed)) must_nest.emplace(src.loops[p], src.loops[q]);
        }
      }
      if (dep.src == dep.dst) continue;
      const std::vector<std::string> same_outer = equal_up_to(shared);
      if (any(raw[d].map, src, dst, same_outer)) ordered.emplace(dep.src, dep.dst);
      for (size_t i = shared; i < src.loops.size(); ++i) {
        for (size_t j = shared; j < dst.loops.size(); ++j) {
          if (kernel_.loop(src.loops[i]).logical != kernel_.loop(dst.loops[j]).logical) continue;
          std::vector<std::string> backwards = same_outer;
          backwards.push_back(position("b", j) + " < " + position("a", i));
          const std::pair pair(std::min(src.loops[i], dst.loops[j]),
                               std::max(src.loops[i], dst.loops[j]));
          if (any(raw[d].map, src, dst, backwards)) no_merge.insert(pair);
          std::vector<std::string> forwards = same_outer;
          forwards.push_back(position("b", j) + " > " + position("a", i));
          if (any(raw[d].map, src, dst, forwards)) merge_carries.insert(pair);
        }
      }
    }

    result.loop_kinds.assign(kernel_.loop_capacity(), LoopKind::kParallel);
    for (const Loop& loop : kernel_.loops()) {
      if (carried[loop.id.value].empty()) continue;
      const bool reduction =
          std::all_of(carried[loop.id.value].begin(), carried[loop.id.value].end(),
                      [&](size_t d) { return is_reduction_dependence(raw, raw[d].dep, loop.id); });
      result.loop_kinds[loop.id.value] = reduction ? LoopKind::kReduction : LoopKind::kSequential;
    }
    result.dim_kinds.assign(kernel_.dim_capacity(), LoopKind::kParallel);
    for (const Loop& loop : kernel_.loops()) {
      for (DimId dim : loop.dims()) result.dim_kinds[dim.value] = result.loop_kinds[loop.id.value];
    }
    result.ordered.assign(ordered.begin(), ordered.end());
    // Loop pairs to pairs of their dimensions of the same level.
    auto dim_pairs = [&](const std::set<std::pair<LoopId, LoopId>>& loops,
                         std::vector<std::pair<DimId, DimId>>& dims) {
      for (const auto& [a, b] : loops) {
        const std::vector<DimId> a_dims = kernel_.loop(a).dims();
        const std::vector<DimId> b_dims = kernel_.loop(b).dims();
        for (size_t i = 0; i < a_dims.size(); ++i) {
          dims.emplace_back(std::min(a_dims[i], b_dims[i]), std::max(a_dims[i], b_dims[i]));
        }
      }
      std::sort(dims.begin(), dims.end());
    };
    std::erase_if(merge_carries, [&](const auto& pair) { return no_merge.count(pair) > 0; });
    dim_pairs(no_merge, result.no_merge);
    dim_pairs(merge_carries, result.merge_carries);
    for (const auto& [outer, inner] : must_nest) {
      for (DimId o : kernel_.loop(outer).dims()) {
        for (DimId i : kernel_.loop(inner).dims()) result.must_nest.emplace_back(o, i);
      }
    }
    std::sort(result.must_nest.begin(), result.must_nest.end());
    for (const RawDependence& dep : raw) result.all.push_back(dep.dep);
    return result;
  }

  // A dependence carried by `loop` that a reduction over `loop` accounts for: the reducer's
  // accumulator from one iteration to the next, with no other instruction inside the loop
  // reading the partial values.
  bool is_reduction_dependence(const std::vector<RawDependence>& raw, const Dependence& dep,
                               LoopId loop) const {
    if (dep.src != dep.dst) return false;
    const Instruction& reducer = kernel_.inst(dep.src);
    const std::vector<LoopId>& reduced = reducer.reduction_loops();
    if (std::find(reduced.begin(), reduced.end(), loop) == reduced.end()) return false;
    if (dep.array != display_name(value_array(reducer.id))) return false;
    return std::none_of(raw.begin(), raw.end(), [&](const RawDependence& other) {
      const Instruction& reader = kernel_.inst(other.dep.dst);
      return other.dep.kind == DepKind::kFlow && other.dep.src == reducer.id &&
             other.dep.dst != reducer.id &&
             std::find(reader.loops.begin(), reader.loops.end(), loop) != reader.loops.end();
    });
  }

  const Kernel& kernel_;
  isl::Ctx ctx_;
  std::vector<const Instruction*> insts_;
  size_t depth_ = 0;
  std::vector<std::string> schedule_;
  std::map<std::string, std::vector<std::string>> reads_;   // array -> access relations
  std::map<std::string, std::vector<std::string>> writes_;  // array -> access relations
};

}  // namespace

Dependences compute_dependences(const Kernel& kernel) { return Analysis(kernel).run(); }

}  // namespace sculpt::backbone
