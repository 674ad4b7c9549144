#include "frontend/tc_check.h"

#include <algorithm>
#include <map>

#include "frontend/tc_expressions.h"
#include "frontend/tc_ranges.h"

namespace sculpt::frontend {
namespace {

using backbone::ElemType;

// Types of TC sculpt has no element type for.
constexpr std::string_view kUnsupportedTypes[] = {"half", "float16", "int8",   "int16",  "int64",
                                                  "long", "uint8",   "uint16", "uint32", "uint64",
                                                  "bool", "byte",    "char"};

std::optional<ElemType> element_type(const std::string& name) {
  if (name == "float" || name == "float32") return ElemType::kF32;
  if (name == "double" || name == "float64") return ElemType::kF64;
  if (name == "int" || name == "int32") return ElemType::kI32;
  return std::nullopt;
}

std::optional<std::pair<Reduction, bool>> reduction_of(const std::string& op) {
  const bool init = op.ends_with('!');
  const std::string base = init ? op.substr(0, op.size() - 1) : op;
  if (base == "=") return std::pair(Reduction::kNone, false);
  if (base == "+=") return std::pair(Reduction::kSum, init);
  if (base == "*=") return std::pair(Reduction::kProduct, init);
  if (base == "min=") return std::pair(Reduction::kMin, init);
  if (base == "max=") return std::pair(Reduction::kMax, init);
  return std::nullopt;
}

/// "a statement has at most 16 indices (...)".
std::string too_many_indices(const std::string& what, const std::string& noun) {
  return what + " has at most " + std::to_string(kMaxIndices) + " " + noun +
         " (each index is a loop of every instruction of its statement, and a search's space "
         "grows faster than they do)";
}

/// A statement's indices while it is checked.
struct Scope {
  IndexScope names;
  std::vector<std::size_t> offsets;
  std::vector<bool> on_lhs;
  std::vector<int> dims;  // the dimension a read or a definition ties it to, or -1
  std::vector<std::optional<IndexRange>> where;
  std::vector<std::size_t> where_offsets;

  int add(const std::string& name, std::size_t offset, bool lhs) {
    names.names.push_back(name);
    offsets.push_back(offset);
    on_lhs.push_back(lhs);
    dims.push_back(-1);
    where.emplace_back();
    where_offsets.push_back(0);
    return static_cast<int>(names.names.size()) - 1;
  }
};

class DefinitionChecker {
 public:
  DefinitionChecker(const ast::Definition& ast, const SourceFile& source, Diagnostics& diags)
      : ast_(ast), source_(source), diags_(diags) {}

  std::optional<Definition> run() {
    def_.name = ast_.name.text;
    def_.offset = ast_.name.offset;
    if (!signature() || !output_list()) return std::nullopt;
    if (ast_.statements.empty()) {
      error(ast_.name.offset, "definition '" + def_.name + "' has no statement");
      return std::nullopt;
    }
    for (const ast::Statement& s : ast_.statements) later_.emplace(s.tensor.text, s.offset);
    // One mistake in a statement leaves the tensors after it unknown: the first is reported.
    for (const ast::Statement& s : ast_.statements) {
      if (!statement(s)) return std::nullopt;
    }
    for (const ast::Name& out : ast_.outputs) {
      if (def_.find_tensor(out.text) < 0) {
        error(out.offset, "output '" + out.text + "' is never defined");
        return std::nullopt;
      }
      def_.outputs.push_back(def_.find_tensor(out.text));
    }
    finish_dims();
    return std::move(def_);
  }

 private:
  void error(std::size_t offset, std::string message) {
    report(diags_, source_, offset, std::move(message));
  }

  std::string at(std::size_t offset) const {
    const SourceLocation loc = source_.location(offset);
    return std::to_string(loc.line) + ":" + std::to_string(loc.column);
  }

  /// Whether `name` is a scalar's or a tensor's of the signature, or a size (when `sizes`).
  bool taken(const std::string& name, bool sizes) const {
    return def_.find_tensor(name) >= 0 ||
           std::any_of(def_.scalars.begin(), def_.scalars.end(),
                       [&](const Scalar& s) { return s.name == name; }) ||
           (sizes && std::find(def_.sizes.begin(), def_.sizes.end(), name) != def_.sizes.end());
  }

  bool signature() {
    std::map<std::string, std::size_t> seen;
    for (const ast::Param& p : ast_.params) {
      const std::optional<ElemType> type = element_type(p.type.text);
      if (!type) {
        const bool known = std::find(std::begin(kUnsupportedTypes), std::end(kUnsupportedTypes),
                                     p.type.text) != std::end(kUnsupportedTypes);
        error(p.type.offset, known ? "element type '" + p.type.text +
                                         "' is not supported (sculpt has float, double and int32)"
                                   : "unknown element type '" + p.type.text + "'");
        return false;
      }
      if (auto [it, fresh] = seen.emplace(p.name.text, p.name.offset); !fresh) {
        error(p.name.offset, "parameter '" + p.name.text + "' is declared twice (first at " +
                                 at(it->second) + ")");
        return false;
      }
      if (!p.sizes) {
        def_.params.push_back({true, static_cast<int>(def_.scalars.size())});
        def_.scalars.push_back({p.name.text, *type});
        continue;
      }
      if (p.sizes->size() > static_cast<std::size_t>(kMaxIndices)) {
        error((*p.sizes)[kMaxIndices].offset, too_many_indices("a tensor", "dimensions"));
        return false;
      }
      Tensor t;
      t.name = p.name.text;
      t.offset = p.name.offset;
      t.type = *type;
      for (const ast::Name& size : *p.sizes) {
        t.sizes.push_back(size.text);
        if (std::find(def_.sizes.begin(), def_.sizes.end(), size.text) == def_.sizes.end()) {
          def_.sizes.push_back(size.text);
        }
      }
      def_.params.push_back({false, static_cast<int>(def_.tensors.size())});
      def_.tensors.push_back(std::move(t));
    }
    for (const ast::Param& p : ast_.params) {
      if (p.sizes &&
          std::find(def_.sizes.begin(), def_.sizes.end(), p.name.text) != def_.sizes.end()) {
        error(p.name.offset, "'" + p.name.text + "' names both a size and a parameter");
        return false;
      }
    }
    return true;
  }

  bool output_list() {
    if (ast_.outputs.empty()) {
      error(ast_.name.offset,
            "definition '" + def_.name + "' has no output: list them in '-> (...)'");
      return false;
    }
    for (std::size_t i = 0; i < ast_.outputs.size(); ++i) {
      const ast::Name& out = ast_.outputs[i];
      for (std::size_t j = 0; j < i; ++j) {
        if (ast_.outputs[j].text == out.text) {
          error(out.offset, "output '" + out.text + "' is listed twice");
          return false;
        }
      }
      if (taken(out.text, true)) {
        error(out.offset,
              "'" + out.text + "' is a parameter or a size: an output needs a name of its own");
        return false;
      }
    }
    return true;
  }

  bool is_output(const std::string& name) const {
    return std::any_of(ast_.outputs.begin(), ast_.outputs.end(),
                       [&](const ast::Name& n) { return n.text == name; });
  }

  /// The left-hand side: its tensor (-1: one this statement defines first) and indices.
  bool lhs(const ast::Statement& s, int& tensor, Scope& scope) {
    const std::string& name = s.tensor.text;
    tensor = def_.find_tensor(name);
    if (tensor >= 0 && !def_.tensors[tensor].defined()) {
      error(s.tensor.offset, "'" + name + "' is an input: a statement cannot write it");
      return false;
    }
    if (tensor < 0 && taken(name, true)) {
      error(s.tensor.offset, "'" + name + "' is a scalar or a size: a statement writes a tensor");
      return false;
    }
    if (tensor >= 0 && def_.tensors[tensor].dims.size() != s.indices.size()) {
      error(s.tensor.offset, "'" + name + "' has " +
                                 std::to_string(def_.tensors[tensor].dims.size()) +
                                 " dimensions, not " + std::to_string(s.indices.size()));
      return false;
    }
    if (s.indices.empty()) {
      error(s.tensor.offset,
            "'" + name + "' needs at least one index (0-d tensors are not supported)");
      return false;
    }
    for (const ast::Expr& index : s.indices) {
      const auto* n = boost::get<ast::Name>(&strip(index).get());
      if (!n) {
        error(offset_of(strip(index)),
              "the left-hand side is indexed by index names, as in '" + name + "(i, j)'");
        return false;
      }
      if (taken(n->text, false)) {
        error(n->offset, "'" + n->text + "' is a parameter, not an index");
        return false;
      }
      if (scope.names.find(n->text) >= 0) {
        error(n->offset, "index '" + n->text + "' appears twice on the left-hand side");
        return false;
      }
      scope.add(n->text, n->offset, true);
    }
    return true;
  }

  bool where_ranges(const ast::Statement& s, const ExprChecker& exprs, Scope& scope) {
    for (const ast::Range& r : s.where) {
      if (taken(r.index.text, false)) {
        error(r.index.offset, "'" + r.index.text + "' is a parameter, not an index");
        return false;
      }
      int index = scope.names.find(r.index.text);
      if (index < 0) index = scope.add(r.index.text, r.index.offset, false);
      if (scope.where[index]) {
        error(r.index.offset, "index '" + r.index.text + "' has two 'where' ranges");
        return false;
      }
      std::optional<IndexRange> range = exprs.range(r);
      if (!range) return false;
      scope.where[index] = std::move(range);
      scope.where_offsets[index] = r.index.offset;
    }
    return true;
  }

  int find(int dim) {
    while (parent_[dim] != dim) dim = parent_[dim] = parent_[parent_[dim]];
    return dim;
  }

  /// Ties index `index` to dimension `dim` (the dimensions it was tied to before become one).
  bool bind(Scope& scope, int index, int dim, std::size_t offset) {
    dim = find(dim);
    if (scope.dims[index] < 0) {
      scope.dims[index] = dim;
      return true;
    }
    const int other = find(scope.dims[index]);
    if (other == dim) return true;
    if (!(def_.dims[other].range == def_.dims[dim].range)) {
      error(offset, "mismatched sizes: index '" + scope.names.names[index] + "' ranges over " +
                        def_.dims[dim].range.to_string() + " here but over " +
                        def_.dims[other].range.to_string() + " elsewhere in this statement");
      return false;
    }
    parent_[std::max(other, dim)] = std::min(other, dim);
    return true;
  }

  /// Collects the reads of inputs; ties the indices reading defined tensors to their dimensions.
  bool reads(const Expr& e, int tensor, Reduction reduction, Scope& scope,
             std::vector<const Expr*>& inputs) {
    if (e.kind == Expr::Kind::kRead && !def_.tensors[e.id].defined()) inputs.push_back(&e);
    if (e.kind == Expr::Kind::kRead && def_.tensors[e.id].defined()) {
      const Tensor& t = def_.tensors[e.id];
      if (e.id == tensor && reduction != Reduction::kNone) {
        error(e.offset, "a reduction cannot read the tensor it reduces into, '" + t.name + "'");
        return false;
      }
      for (std::size_t p = 0; p < e.subscripts.size(); ++p) {
        const Subscript& s = e.subscripts[p];
        if (s.terms.size() != 1 || s.terms[0].second != 1 || s.constant != 0) {
          error(s.offset, "'" + t.name +
                              "' is computed by this definition: read it at index names only, "
                              "as it was written (sculpt passes it as a value, not in memory)");
          return false;
        }
        if (!bind(scope, s.terms[0].first, t.dims[p], s.offset)) return false;
      }
    }
    for (const Expr& arg : e.args) {
      if (!reads(arg, tensor, reduction, scope, inputs)) return false;
    }
    return true;
  }

  /// Every index in a dimension of its own, and its range known when it has one.
  bool known_ranges(const Scope& scope, RangeProblem& problem) {
    const int n = static_cast<int>(scope.dims.size());
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < i; ++j) {
        if (scope.dims[i] >= 0 && scope.dims[j] >= 0 &&
            find(scope.dims[i]) == find(scope.dims[j])) {
          error(scope.offsets[i], "indices '" + scope.names.names[j] + "' and '" +
                                      scope.names.names[i] +
                                      "' would be one dimension: a tensor computed by this "
                                      "definition is read in the order of its indices");
          return false;
        }
      }
      std::optional<IndexRange> range;
      if (scope.dims[i] >= 0) range = def_.dims[find(scope.dims[i])].range;
      if (range && scope.where[i] && !(*range == *scope.where[i])) {
        error(scope.where_offsets[i], "mismatched sizes: the range " + scope.where[i]->to_string() +
                                          " of '" + scope.names.names[i] + "' is not " +
                                          range->to_string() + ", the range of its dimension");
        return false;
      }
      problem.known.push_back(range ? range : scope.where[i]);
    }
    return true;
  }

  bool statement(const ast::Statement& s) {
    int tensor = -1;
    Scope scope;
    if (!lhs(s, tensor, scope)) return false;
    const ExprChecker exprs(def_, later_, source_, diags_);
    std::vector<std::pair<std::string, std::size_t>> names;
    exprs.subscript_names(s.rhs, names);
    for (const auto& [name, offset] : names) {
      if (scope.names.find(name) < 0) scope.add(name, offset, false);
    }
    if (!where_ranges(s, exprs, scope)) return false;
    if (scope.offsets.size() > static_cast<std::size_t>(kMaxIndices)) {
      error(scope.offsets[kMaxIndices], too_many_indices("a statement", "indices"));
      return false;
    }
    std::optional<Expr> rhs = exprs.value(s.rhs, scope.names);
    if (!rhs) return false;
    const auto [reduction, init] = *reduction_of(s.op);
    for (std::size_t i = 0; i < scope.on_lhs.size() && reduction == Reduction::kNone; ++i) {
      if (scope.on_lhs[i]) continue;
      error(scope.offsets[i], "index '" + scope.names.names[i] +
                                  "' is not on the left-hand side: only a reduction ('+=!', "
                                  "'max=!', ...) ranges over free indices");
      return false;
    }
    RangeProblem problem{&def_, scope.names, s.indices.size(), scope.offsets, {}, {}};
    if (!reads(*rhs, tensor, reduction, scope, problem.reads)) return false;
    if (tensor >= 0) {
      for (std::size_t p = 0; p < s.indices.size(); ++p) {
        if (!bind(scope, static_cast<int>(p), def_.tensors[tensor].dims[p], scope.offsets[p])) {
          return false;
        }
      }
    }
    if (!known_ranges(scope, problem)) return false;
    std::optional<std::vector<IndexRange>> ranges = infer_ranges(problem, source_, diags_);
    if (!ranges || !check_bounds(problem, *ranges, source_, diags_)) return false;
    for (std::size_t p = 0; p < s.indices.size(); ++p) {
      if (!((*ranges)[p].lo == SizeBound{})) {
        error(scope.offsets[p], "index '" + scope.names.names[p] + "' ranges over " +
                                    (*ranges)[p].to_string() + ": '" + s.tensor.text +
                                    "' is written from index 0");
        return false;
      }
    }
    if (tensor < 0 && reduction != Reduction::kNone && !init && !is_output(s.tensor.text)) {
      error(s.offset, "'" + s.tensor.text + "' has no value to reduce into: write '" + s.op +
                          "!' to start from the reduction's neutral element");
      return false;
    }
    commit(s, tensor, reduction, init, scope, *ranges, std::move(*rhs));
    return true;
  }

  void commit(const ast::Statement& s, int tensor, Reduction reduction, bool init,
              const Scope& scope, const std::vector<IndexRange>& ranges, Expr rhs) {
    Statement st;
    st.offset = s.offset;
    st.reduction = reduction;
    st.init = init;
    for (std::size_t i = 0; i < scope.dims.size(); ++i) {
      int dim = scope.dims[i] >= 0 ? find(scope.dims[i]) : -1;
      if (dim < 0) {
        dim = static_cast<int>(def_.dims.size());
        def_.dims.push_back({scope.names.names[i], scope.offsets[i], ranges[i], false});
        parent_.push_back(dim);
      }
      def_.dims[dim].parallel = def_.dims[dim].parallel || scope.on_lhs[i];
      st.indices.push_back({scope.names.names[i], dim, !scope.on_lhs[i]});
      if (scope.on_lhs[i]) st.lhs.push_back(static_cast<int>(i));
    }
    if (tensor < 0) {
      Tensor t;
      t.name = s.tensor.text;
      t.offset = s.tensor.offset;
      t.role = is_output(t.name) ? Tensor::Role::kOutput : Tensor::Role::kTemporary;
      t.type = rhs.type.value_or(ElemType::kF32);
      for (int index : st.lhs) t.dims.push_back(st.indices[index].dim);
      t.reads_initial = reduction != Reduction::kNone && !init;
      tensor = static_cast<int>(def_.tensors.size());
      def_.tensors.push_back(std::move(t));
      later_.erase(s.tensor.text);
    }
    def_.tensors[tensor].last_statement = static_cast<int>(def_.statements.size());
    st.tensor = tensor;
    st.rhs = std::move(rhs);
    def_.statements.push_back(std::move(st));
  }

  /// Dimensions that became one are numbered once, in order of creation, with distinct names.
  void finish_dims() {
    std::vector<int> id(def_.dims.size(), -1);
    std::vector<Dim> dims;
    std::map<std::string, int> used;
    for (std::size_t d = 0; d < def_.dims.size(); ++d) {
      if (find(static_cast<int>(d)) != static_cast<int>(d)) continue;
      id[d] = static_cast<int>(dims.size());
      Dim dim = def_.dims[d];
      if (const int n = ++used[dim.name]; n > 1) dim.name += "_" + std::to_string(n);
      dims.push_back(std::move(dim));
    }
    for (std::size_t d = 0; d < def_.dims.size(); ++d) {
      id[d] = id[find(static_cast<int>(d))];
      dims[id[d]].parallel = dims[id[d]].parallel || def_.dims[d].parallel;
    }
    for (Tensor& t : def_.tensors) {
      for (int& d : t.dims) d = id[d];
    }
    for (Statement& st : def_.statements) {
      for (Index& index : st.indices) index.dim = id[index.dim];
    }
    def_.dims = std::move(dims);
  }

  const ast::Definition& ast_;
  const SourceFile& source_;
  Diagnostics& diags_;
  Definition def_;
  std::map<std::string, std::size_t> later_;  // tensors defined further on: first statement
  std::vector<int> parent_;                   // union-find over def_.dims
};

/// The statements of a definition as one line: the text between its braces, comments out.
std::string statements_text(const std::string& text, std::size_t from, std::size_t to) {
  const std::size_t open = text.find('{', from);
  const std::size_t close = text.rfind('}', to == 0 ? 0 : to - 1);
  if (open == std::string::npos || close == std::string::npos || close < open) return {};
  std::string out;
  bool comment = false, blank = false;
  for (std::size_t i = open + 1; i < close; ++i) {
    const char c = text[i];
    if (c == '#') comment = true;
    if (c == '\n') comment = false;
    if (comment) continue;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      blank = !out.empty();
      continue;
    }
    if (blank) out += ' ';
    blank = false;
    out += c;
  }
  return out;
}

}  // namespace

std::vector<Definition> check(const ast::File& file, const SourceFile& source, Diagnostics& diags) {
  std::vector<Definition> defs;
  std::map<std::string, std::size_t> names;
  for (std::size_t i = 0; i < file.definitions.size(); ++i) {
    const ast::Definition& d = file.definitions[i];
    if (auto [it, fresh] = names.emplace(d.name.text, d.name.offset); !fresh) {
      const SourceLocation first = source.location(it->second);
      report(diags, source, d.name.offset,
             "definition '" + d.name.text + "' is defined twice (first at " +
                 std::to_string(first.line) + ":" + std::to_string(first.column) + ")");
      continue;
    }
    std::optional<Definition> def = DefinitionChecker(d, source, diags).run();
    if (!def) continue;
    const std::size_t end =
        i + 1 < file.definitions.size() ? file.definitions[i + 1].offset : source.text().size();
    def->text = statements_text(source.text(), d.offset, end);
    defs.push_back(std::move(*def));
  }
  return defs;
}

}  // namespace sculpt::frontend
