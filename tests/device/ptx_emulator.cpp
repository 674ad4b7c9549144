#include "tests/device/ptx_emulator.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "perf_model/instruction_class.h"
#include "perf_model/memory_transactions.h"

namespace sculpt::ptx_emulator {
namespace {

enum class Type : std::uint8_t { u32, s32, u64, s64, f32, f64, pred };

std::uint64_t bytes_of(Type t) {
  switch (t) {
    case Type::u32:
    case Type::s32:
    case Type::f32:
      return 4;
    case Type::u64:
    case Type::s64:
    case Type::f64:
      return 8;
    case Type::pred:
      return 1;
  }
  return 0;
}

bool is_float(Type t) { return t == Type::f32 || t == Type::f64; }

enum class Op : std::uint8_t {
  ld_param,
  ld_global,
  ld_shared,
  st_global,
  st_shared,
  mov,
  cvt,
  add,
  sub,
  mul,
  div,
  rem,
  mad,
  min,
  max,
  ex2,
  sqrt,
  setp,
  selp,
  and_pred,
  bra,
  bar,
  ret,
  clock,  // mov from %clock64 or %globaltimer
};

/// PTX's comparisons: ordered (false when a float operand is NaN) but `neu`, C's `!=`.
enum class Cmp : std::uint8_t { eq, ne, neu, lt, le, gt, ge };

/// Special registers, in the order of their index in Operand::index.
constexpr std::string_view kSpecials[] = {"%tid.x",   "%tid.y",    "%tid.z",    "%ntid.x",
                                          "%ntid.y",  "%ntid.z",   "%ctaid.x",  "%ctaid.y",
                                          "%ctaid.z", "%nctaid.x", "%nctaid.y", "%nctaid.z"};
/// Clocks, which only `mov` reads (Op::clock).
constexpr std::string_view kClocks[] = {"%clock64", "%globaltimer"};

struct Operand {
  enum class Kind : std::uint8_t { none, reg, imm, special } kind = Kind::none;
  std::uint32_t index = 0;  // register, or special register
  std::uint64_t imm = 0;    // bits
};

struct Inst {
  Op op = Op::ret;
  Type type = Type::u64;
  Type from = Type::u64;  // cvt's source
  Cmp cmp = Cmp::eq;
  std::uint32_t width = 1;  // elements of a vector ld/st
  std::int32_t guard = -1;  // predicate register
  bool guard_negated = false;
  Operand dst;
  Operand src[3];
  Operand values[4];          // ld/st: what is loaded to or stored, one per element
  std::int32_t address = -1;  // ld/st address register; ld.param: the parameter
  std::int64_t offset = 0;
  std::uint32_t target = 0;  // bra
  int line = 0;
};

bool guard_holds(const Inst& in, const std::uint64_t* r) {
  return in.guard < 0 || (r[in.guard] != 0) != in.guard_negated;
}

/// The class of the warp instructions `in` issues (perf_model/instruction_class.h).
perf_model::InstrClass instruction_class(const Inst& in) {
  using perf_model::InstrClass;
  switch (in.op) {
    case Op::ld_param:
      return InstrClass::param_load;
    case Op::ld_global:
      return InstrClass::global_load;
    case Op::st_global:
      return InstrClass::global_store;
    case Op::ld_shared:
      return InstrClass::shared_load;
    case Op::st_shared:
      return InstrClass::shared_store;
    case Op::mov:  // cvta too
    case Op::cvt:
    case Op::clock:
      return InstrClass::move;
    case Op::setp:
    case Op::and_pred:
    case Op::bra:
    case Op::ret:
      return InstrClass::control;
    case Op::bar:
      return InstrClass::barrier;
    case Op::ex2:
    case Op::sqrt:  // its seed; issued() adds the rest
      return InstrClass::special;
    case Op::selp:  // a select of bits, whatever their type
      return InstrClass::integer;
    case Op::add:
    case Op::sub:
    case Op::mul:
    case Op::div:
    case Op::rem:
    case Op::mad:
    case Op::min:
    case Op::max:
      break;
  }
  if (in.type == Type::f64) return InstrClass::fp64;
  if (in.type != Type::f32) return InstrClass::integer;
  switch (in.op) {
    case Op::mad:  // fma.rn.f32 (and mad.f32, the same on every GPU since Fermi)
      return InstrClass::fp32_fma;
    case Op::add:
    case Op::sub:
      return InstrClass::fp32_add;
    case Op::mul:
      return InstrClass::fp32_mul;
    default:
      return InstrClass::fp32_other;
  }
}

/// The warp instructions of each class one issue of `in` is on a GPU: one of its class, but for
/// sqrt.rn, which ptxas expands into its seed and Heron's step (perf_model/kernel_facts.cpp):
/// two FMULs and two FFMAs for f32, at least two DMULs or DFMAs for f64.
std::array<std::uint64_t, perf_model::kInstrClasses> issued(const Inst& in) {
  using perf_model::InstrClass;
  std::array<std::uint64_t, perf_model::kInstrClasses> n{};
  const auto add = [&n](InstrClass c, std::uint64_t k) { n[static_cast<std::size_t>(c)] += k; };
  add(instruction_class(in), 1);
  if (in.op == Op::sqrt && in.type == Type::f64) {
    add(InstrClass::fp64, 2);
  } else if (in.op == Op::sqrt) {
    add(InstrClass::fp32_mul, 2);
    add(InstrClass::fp32_fma, 2);
  }
  return n;
}

/// What warps issued at a pc.
struct Issued {
  std::uint64_t warp_instructions = 0;
  std::uint64_t sectors = 0;
  std::uint64_t wavefronts = 0;
  std::uint64_t active_accesses = 0;

  /// One more warp instruction, whose active lanes made these global or shared accesses (none
  /// for an instruction other than a load or store). Out of line: the emulator's inner loop is
  /// in the function that calls it, and inlines what it needs only while that stays small.
  [[gnu::noinline]] void add(bool global, std::span<const perf_model::LaneAccess> lanes) {
    ++warp_instructions;
    if (lanes.empty()) return;
    ++active_accesses;
    if (global) {
      sectors += perf_model::global_sectors(lanes);
    } else {
      wavefronts += perf_model::shared_wavefronts(lanes);
    }
  }
};

/// What a run in warp lockstep issued, before it is summed by class and name.
struct WarpCounts {
  std::vector<Issued> by_pc;
  std::uint64_t barriers_per_block = 0;  // the most over blocks
};

struct SharedArray {
  std::string name;
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
};

struct Entry {
  std::vector<Type> params;
  std::map<std::string, std::int32_t, std::less<>> param_index;
  Dim3 reqntid;
  bool has_reqntid = false;
  std::vector<Inst> code;
  /// By pc: the backbone instruction its line's comment names, or "".
  std::vector<std::string> names;
  std::vector<SharedArray> shared;
  std::uint64_t shared_bytes = 0;
  std::map<std::string, std::uint32_t, std::less<>> registers;
  bool reads_clock = false;
};

struct GlobalArray {
  std::uint64_t address = 0;
  std::uint64_t bytes = 0;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

/// Splits at `separator` outside brackets and braces.
std::vector<std::string_view> split_top(std::string_view s, char separator) {
  std::vector<std::string_view> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '[' || s[i] == '{' || s[i] == '(') ++depth;
    if (s[i] == ']' || s[i] == '}' || s[i] == ')') --depth;
    if (s[i] == separator && depth == 0) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (std::string_view last = trim(s.substr(start)); !last.empty()) out.push_back(last);
  return out;
}

std::optional<Type> type_named(std::string_view s) {
  if (s == "u32" || s == "b32") return Type::u32;
  if (s == "s32") return Type::s32;
  if (s == "u64" || s == "b64") return Type::u64;
  if (s == "s64") return Type::s64;
  if (s == "f32") return Type::f32;
  if (s == "f64") return Type::f64;
  if (s == "pred") return Type::pred;
  return std::nullopt;
}

}  // namespace

struct Module::Impl {
  std::map<std::string, GlobalArray, std::less<>> globals;
  std::map<std::string, Entry, std::less<>> entries;

  ~Impl() {
    for (auto& [name, g] : globals) std::free(reinterpret_cast<void*>(g.address));
  }

  [[noreturn]] static void unsupported(int line, std::string_view what) {
    throw Unsupported(fmt::format("PTX line {}: {}", line, what));
  }

  /// An integer written in decimal (negative or not) or in hexadecimal after "0x"; in `base`
  /// alone when one is given.
  template <typename T>
  static T number(std::string_view s, int line, int base = 0) {
    s = trim(s);
    const bool negative = base == 0 && !s.empty() && s.front() == '-';
    std::string_view digits = negative ? s.substr(1) : s;
    if (base == 0) {
      base = 10;
      if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
        digits.remove_prefix(2);
        base = 16;
      }
    }
    std::uint64_t magnitude = 0;
    const auto [end, error] =
        std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
    if (digits.empty() || error != std::errc() || end != digits.data() + digits.size()) {
      unsupported(line, fmt::format("'{}' is not a number", s));
    }
    return static_cast<T>(negative ? std::uint64_t{0} - magnitude : magnitude);
  }

  /// "name[bytes]" of an array declaration.
  static std::pair<std::string, std::uint64_t> array_declaration(std::string_view s, int line) {
    const std::size_t open = s.find('[');
    const std::size_t close = s.find(']');
    if (open == std::string_view::npos || close < open)
      unsupported(line, "an array without its size");
    return {std::string(trim(s.substr(0, open))),
            number<std::uint64_t>(s.substr(open + 1, close - open - 1), line)};
  }

  void parse(const std::string& ptx);
  void parse_entry_header(std::string_view header, int line, Entry& entry);
  void parse_instruction(std::string_view text, int line, Entry& entry,
                         std::vector<std::pair<std::size_t, std::string>>& branches);
  Operand operand(std::string_view s, int line, Entry& entry) const;
  static std::uint32_t register_of(std::string_view s, int line, Entry& entry);
  Outcome run(const Entry& entry, const Launch& launch);
  /// One run of the launch, its blocks and the threads of each phase in increasing or
  /// decreasing order; counts instructions in `executed` and describes the first race that
  /// changed or read a changed value in `first_race`. With `warps`, the threads of a phase run
  /// as warps in lockstep instead of one after another, and it counts what they issue there.
  Outcome execute(const Entry& entry, const Launch& launch, bool reverse, std::uint64_t& executed,
                  std::string& first_race, WarpCounts* warps = nullptr);
  bool global_valid(const Launch& launch, std::uint64_t address, std::uint64_t bytes) const;
};

std::uint32_t Module::Impl::register_of(std::string_view s, int line, Entry& entry) {
  if (s.empty() || s.front() != '%') unsupported(line, fmt::format("'{}' is not a register", s));
  auto [it, added] = entry.registers.try_emplace(
      std::string(s), static_cast<std::uint32_t>(entry.registers.size()));
  return it->second;
}

Operand Module::Impl::operand(std::string_view s, int line, Entry& entry) const {
  Operand o;
  if (s.empty()) unsupported(line, "a missing operand");
  if (s.front() == '%') {
    if (std::find(std::begin(kClocks), std::end(kClocks), s) != std::end(kClocks)) {
      unsupported(line, fmt::format("'{}' read other than by mov", s));
    }
    for (std::size_t i = 0; i < std::size(kSpecials); ++i) {
      if (s == kSpecials[i]) {
        o.kind = Operand::Kind::special;
        o.index = static_cast<std::uint32_t>(i);
        return o;
      }
    }
    o.kind = Operand::Kind::reg;
    o.index = register_of(s, line, entry);
    return o;
  }
  o.kind = Operand::Kind::imm;
  if (s.size() == 10 && (s.substr(0, 2) == "0f" || s.substr(0, 2) == "0F")) {
    o.imm = number<std::uint64_t>(s.substr(2), line, 16);
    return o;
  }
  if (s.size() == 18 && (s.substr(0, 2) == "0d" || s.substr(0, 2) == "0D")) {
    o.imm = number<std::uint64_t>(s.substr(2), line, 16);
    return o;
  }
  if (std::isdigit(static_cast<unsigned char>(s.front())) || s.front() == '-') {
    o.imm = number<std::uint64_t>(s, line);
    return o;
  }
  if (auto g = globals.find(s); g != globals.end()) {
    o.imm = g->second.address;
    return o;
  }
  for (const SharedArray& a : entry.shared) {
    if (a.name == s) {
      o.imm = a.offset;
      return o;
    }
  }
  unsupported(line, fmt::format("unknown operand '{}'", s));
}

void Module::Impl::parse_entry_header(std::string_view header, int line, Entry& entry) {
  const std::size_t open = header.find('(');
  const std::size_t close = header.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos) {
    unsupported(line, "an entry without its parameter list");
  }
  for (std::string_view param : split_top(header.substr(open + 1, close - open - 1), ',')) {
    // ".param .u64 name"
    std::vector<std::string_view> words = split_top(param, ' ');
    if (words.size() != 3 || words[0] != ".param" || words[1].front() != '.') {
      unsupported(line, fmt::format("parameter '{}'", param));
    }
    std::optional<Type> type = type_named(words[1].substr(1));
    if (!type || *type == Type::pred) unsupported(line, fmt::format("parameter '{}'", param));
    entry.param_index[std::string(words[2])] = static_cast<std::int32_t>(entry.params.size());
    entry.params.push_back(*type);
  }
}

void Module::Impl::parse_instruction(std::string_view text, int line, Entry& entry,
                                     std::vector<std::pair<std::size_t, std::string>>& branches) {
  Inst inst;
  inst.line = line;
  if (text.front() == '@') {
    const std::size_t space = text.find(' ');
    std::string_view guard = text.substr(1, space - 1);
    if (!guard.empty() && guard.front() == '!') {
      inst.guard_negated = true;
      guard.remove_prefix(1);
    }
    inst.guard = static_cast<std::int32_t>(register_of(guard, line, entry));
    text = trim(text.substr(space));
  }
  const std::size_t space = text.find_first_of(" \t");
  const std::string_view opcode = text.substr(0, space);
  const std::vector<std::string_view> args = space == std::string_view::npos
                                                 ? std::vector<std::string_view>{}
                                                 : split_top(text.substr(space + 1), ',');
  std::vector<std::string_view> parts;
  for (std::size_t at = 0; at <= opcode.size();) {
    const std::size_t dot = std::min(opcode.find('.', at), opcode.size());
    parts.push_back(opcode.substr(at, dot - at));
    at = dot + 1;
  }
  const std::string_view mnemonic = parts[0];
  auto type_at = [&](std::size_t i) {
    if (i >= parts.size()) unsupported(line, fmt::format("'{}' without a type", opcode));
    std::optional<Type> t = type_named(parts[i]);
    if (!t) unsupported(line, fmt::format("type '{}' of '{}'", parts[i], opcode));
    return *t;
  };
  auto want = [&](std::size_t n) {
    if (args.size() != n) {
      unsupported(line, fmt::format("'{}' with {} operands, not {}", opcode, args.size(), n));
    }
  };
  // Whether the address is a parameter.
  auto address = [&](std::string_view a) {
    if (a.size() < 2 || a.front() != '[' || a.back() != ']') {
      unsupported(line, fmt::format("address '{}'", a));
    }
    std::string_view inside = trim(a.substr(1, a.size() - 2));
    if (auto p = entry.param_index.find(inside); p != entry.param_index.end()) {
      inst.address = p->second;
      return true;
    }
    const std::size_t plus = inside.find('+');
    inst.address =
        static_cast<std::int32_t>(register_of(trim(inside.substr(0, plus)), line, entry));
    if (plus != std::string_view::npos) {
      inst.offset = number<std::int64_t>(inside.substr(plus + 1), line);
    }
    return false;
  };
  auto values = [&](std::string_view list, bool load) {
    std::vector<std::string_view> items;
    if (!list.empty() && list.front() == '{') {
      items = split_top(list.substr(1, list.size() - 2), ',');
    } else {
      items.push_back(list);
    }
    if (items.size() != inst.width)
      unsupported(line, fmt::format("'{}' for .v{}", list, inst.width));
    for (std::size_t i = 0; i < items.size(); ++i) {
      inst.values[i] = operand(items[i], line, entry);
      if (load && inst.values[i].kind != Operand::Kind::reg) {
        unsupported(line, fmt::format("a load into '{}'", items[i]));
      }
    }
  };
  auto destination = [&] {
    inst.dst = operand(args[0], line, entry);
    if (inst.dst.kind != Operand::Kind::reg) {
      unsupported(line, fmt::format("'{}' written by '{}'", args[0], opcode));
    }
  };
  // The first operand is the register written, the others are read.
  auto operands = [&] {
    destination();
    for (std::size_t i = 1; i < args.size(); ++i) inst.src[i - 1] = operand(args[i], line, entry);
  };
  ;

  if (mnemonic == "ld" || mnemonic == "st") {
    const bool load = mnemonic == "ld";
    if (parts.size() < 3) unsupported(line, fmt::format("'{}'", opcode));
    const std::string_view space_name = parts[1];
    std::size_t next = 2;
    static constexpr std::string_view kLoadCaches[] = {"ca", "cg", "cs", "lu", "cv", "nc"};
    static constexpr std::string_view kStoreCaches[] = {"wb", "cg", "cs", "wt"};
    if (space_name == "global" && next < parts.size()) {
      const auto& caches = load ? std::span<const std::string_view>(kLoadCaches)
                                : std::span<const std::string_view>(kStoreCaches);
      if (std::find(caches.begin(), caches.end(), parts[next]) != caches.end()) ++next;
    }
    if (next < parts.size() && (parts[next] == "v2" || parts[next] == "v4")) {
      inst.width = parts[next] == "v2" ? 2 : 4;
      ++next;
    }
    inst.type = type_at(next);
    if (next + 1 != parts.size()) unsupported(line, fmt::format("'{}'", opcode));
    want(2);
    if (space_name == "param" && load) {
      inst.op = Op::ld_param;
      if (!address(args[1])) unsupported(line, "ld.param of an address other than a parameter");
      if (bytes_of(entry.params[static_cast<std::size_t>(inst.address)]) != bytes_of(inst.type)) {
        unsupported(line, fmt::format("'{}' of a parameter of another size", opcode));
      }
      destination();
      return entry.code.push_back(inst);
    }
    if (space_name != "global" && space_name != "shared") {
      unsupported(line, fmt::format("state space '{}'", space_name));
    }
    const bool global = space_name == "global";
    inst.op =
        load ? (global ? Op::ld_global : Op::ld_shared) : (global ? Op::st_global : Op::st_shared);
    if (address(args[load ? 1 : 0])) unsupported(line, "a parameter read as memory");
    values(args[load ? 0 : 1], load);
    return entry.code.push_back(inst);
  }
  if (mnemonic == "mov" || mnemonic == "cvta") {
    // cvta.to.global.u64: generic and global addresses are the same here.
    inst.op = Op::mov;
    inst.type = type_at(parts.size() - 1);
    want(2);
    if (std::find(std::begin(kClocks), std::end(kClocks), args[1]) != std::end(kClocks)) {
      if (bytes_of(inst.type) != 8) unsupported(line, fmt::format("'{}' of a clock", opcode));
      inst.op = Op::clock;
      entry.reads_clock = true;
      destination();
      return entry.code.push_back(inst);
    }
    operands();
    return entry.code.push_back(inst);
  }
  if (mnemonic == "cvt") {
    inst.op = Op::cvt;
    inst.type = type_at(parts.size() - 2);
    inst.from = type_at(parts.size() - 1);
    want(2);
    operands();
    return entry.code.push_back(inst);
  }
  static const std::map<std::string_view, std::pair<Op, std::size_t>> kArithmetic = {
      {"add", {Op::add, 3}}, {"sub", {Op::sub, 3}},   {"mul", {Op::mul, 3}},
      {"div", {Op::div, 3}}, {"rem", {Op::rem, 3}},   {"mad", {Op::mad, 4}},
      {"fma", {Op::mad, 4}}, {"min", {Op::min, 3}},   {"max", {Op::max, 3}},
      {"ex2", {Op::ex2, 2}}, {"sqrt", {Op::sqrt, 2}}, {"selp", {Op::selp, 4}}};
  if (auto a = kArithmetic.find(mnemonic); a != kArithmetic.end()) {
    inst.op = a->second.first;
    inst.type = type_at(parts.size() - 1);
    if (!is_float(inst.type) && (inst.op == Op::mul || inst.op == Op::mad) &&
        std::find(parts.begin(), parts.end(), "lo") == parts.end()) {
      unsupported(line, fmt::format("'{}': only the low half of integer products", opcode));
    }
    if (inst.op == Op::ex2 && inst.type != Type::f32)
      unsupported(line, fmt::format("'{}'", opcode));
    // Only the correctly rounded sqrt, which the host's is.
    if (inst.op == Op::sqrt && (!is_float(inst.type) || parts[1] != "rn"))
      unsupported(line, fmt::format("'{}'", opcode));
    want(a->second.second);
    operands();
    return entry.code.push_back(inst);
  }
  if (mnemonic == "setp") {
    static const std::map<std::string_view, Cmp> kCmps = {
        {"eq", Cmp::eq}, {"ne", Cmp::ne}, {"neu", Cmp::neu}, {"lt", Cmp::lt},
        {"le", Cmp::le}, {"gt", Cmp::gt}, {"ge", Cmp::ge}};
    if (parts.size() != 3 || !kCmps.count(parts[1])) unsupported(line, fmt::format("'{}'", opcode));
    inst.op = Op::setp;
    inst.cmp = kCmps.at(parts[1]);
    inst.type = type_at(2);
    if (inst.cmp == Cmp::neu && !is_float(inst.type)) {
      unsupported(line, fmt::format("'{}'", opcode));
    }
    want(3);
    operands();
    return entry.code.push_back(inst);
  }
  if (opcode == "and.pred") {
    inst.op = Op::and_pred;
    inst.type = Type::pred;
    want(3);
    operands();
    return entry.code.push_back(inst);
  }
  if (opcode == "bra" || opcode == "bra.uni") {
    inst.op = Op::bra;
    want(1);
    branches.emplace_back(entry.code.size(), std::string(args[0]));
    return entry.code.push_back(inst);
  }
  if (opcode == "bar.sync" || opcode == "barrier.sync") {
    inst.op = Op::bar;
    want(1);
    if (args[0] != "0") unsupported(line, "a barrier other than 0, or with a thread count");
    return entry.code.push_back(inst);
  }
  if (opcode == "ret") {
    inst.op = Op::ret;
    want(0);
    return entry.code.push_back(inst);
  }
  unsupported(line, fmt::format("instruction '{}'", opcode));
}

void Module::Impl::parse(const std::string& ptx) {
  std::vector<std::string> lines;
  std::vector<std::string> comments;
  for (std::size_t at = 0; at <= ptx.size();) {
    std::size_t end = std::min(ptx.find('\n', at), ptx.size());
    std::string line = ptx.substr(at, end - at);
    std::string comment;
    if (std::size_t start = line.find("//"); start != std::string::npos) {
      comment = trim(std::string_view(line).substr(start + 2));
      line.resize(start);
    }
    lines.push_back(std::move(line));
    comments.push_back(std::move(comment));
    at = end + 1;
  }
  Entry* entry = nullptr;
  std::string header;
  int header_line = 0;
  bool in_body = false;
  std::map<std::string, std::uint32_t, std::less<>> labels;
  std::vector<std::pair<std::size_t, std::string>> branches;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const int n = static_cast<int>(i) + 1;
    std::string_view line = trim(lines[i]);
    if (line.empty()) continue;
    if (!header.empty()) {
      // Within an entry's parameter list.
      header += " ";
      header += line;
      if (line.find(')') == std::string_view::npos) continue;
      parse_entry_header(header, header_line, *entry);
      header.clear();
      continue;
    }
    if (!in_body) {
      if (line.starts_with(".version") || line.starts_with(".target") ||
          line.starts_with(".address_size")) {
        continue;
      }
      if (line.starts_with(".global")) {
        if (line.find(".b8") == std::string_view::npos) unsupported(n, fmt::format("'{}'", line));
        auto [name, bytes] = array_declaration(line.substr(line.find(".b8") + 3), n);
        if (globals.count(name)) unsupported(n, fmt::format("a second global '{}'", name));
        // Aligned as cuMemAlloc's allocations are, so that the sectors counted do not depend on
        // where the host's allocator put the array.
        constexpr std::uint64_t kAlign = 256;
        void* memory = std::aligned_alloc(
            kAlign, std::max<std::uint64_t>(kAlign, (bytes + kAlign - 1) / kAlign * kAlign));
        std::memset(memory, 0, bytes);  // as the loader zeroes them
        globals[name] = {reinterpret_cast<std::uint64_t>(memory), bytes};
        continue;
      }
      if (line.starts_with(".visible .entry") || line.starts_with(".entry")) {
        const std::size_t name_start = line.find(".entry") + 6;
        const std::size_t open = line.find('(');
        if (open == std::string_view::npos) unsupported(n, "an entry without its parameter list");
        entry = &entries[std::string(trim(line.substr(name_start, open - name_start)))];
        header = std::string(line);
        header_line = n;
        if (line.find(')') != std::string_view::npos) {
          parse_entry_header(header, n, *entry);
          header.clear();
        }
        continue;
      }
      if (entry != nullptr && line.starts_with(".reqntid")) {
        std::vector<std::string_view> sizes = split_top(line.substr(8), ',');
        if (sizes.empty() || sizes.size() > 3) unsupported(n, "'.reqntid'");
        unsigned* dims[] = {&entry->reqntid.x, &entry->reqntid.y, &entry->reqntid.z};
        for (std::size_t d = 0; d < sizes.size(); ++d) *dims[d] = number<unsigned>(sizes[d], n);
        entry->has_reqntid = true;
        continue;
      }
      if (entry != nullptr && line == "{") {
        in_body = true;
        labels.clear();
        branches.clear();
        continue;
      }
      unsupported(n, fmt::format("'{}'", line));
    }
    if (line == "}") {
      for (const auto& [at, label] : branches) {
        auto target = labels.find(label);
        if (target == labels.end())
          unsupported(entry->code[at].line, fmt::format("no label '{}'", label));
        entry->code[at].target = target->second;
      }
      in_body = false;
      entry = nullptr;
      continue;
    }
    if (line.back() == ':') {
      labels[std::string(line.substr(0, line.size() - 1))] =
          static_cast<std::uint32_t>(entry->code.size());
      continue;
    }
    if (line.back() != ';') unsupported(n, fmt::format("'{}' does not end with ';'", line));
    line.remove_suffix(1);
    line = trim(line);
    if (line.starts_with(".reg") || line.starts_with(".pragma")) continue;
    if (line.starts_with(".shared")) {
      if (line.find(".b8") == std::string_view::npos) unsupported(n, fmt::format("'{}'", line));
      auto [name, bytes] = array_declaration(line.substr(line.find(".b8") + 3), n);
      entry->shared_bytes = (entry->shared_bytes + 15) / 16 * 16;
      entry->shared.push_back({name, entry->shared_bytes, bytes});
      entry->shared_bytes += bytes;
      continue;
    }
    parse_instruction(line, n, *entry, branches);
    entry->names.push_back(std::move(comments[i]));
  }
  if (in_body || !header.empty())
    unsupported(static_cast<int>(lines.size()), "an unfinished entry");
}

namespace {

float f32(std::uint64_t bits) { return std::bit_cast<float>(static_cast<std::uint32_t>(bits)); }
double f64(std::uint64_t bits) { return std::bit_cast<double>(bits); }
std::uint64_t bits(float v) { return std::bit_cast<std::uint32_t>(v); }
std::uint64_t bits(double v) { return std::bit_cast<std::uint64_t>(v); }

/// A value of type `t` widened for conversions: integers as int64 (u64 as is), floats as double.
struct Wide {
  bool floating = false;
  bool is_unsigned = false;
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double d = 0;
};

Wide widen(Type t, std::uint64_t v) {
  switch (t) {
    case Type::u32:
      return {false, true, static_cast<std::int64_t>(static_cast<std::uint32_t>(v)),
              static_cast<std::uint32_t>(v), 0};
    case Type::s32:
      return {false, false, static_cast<std::int32_t>(v), 0, 0};
    case Type::u64:
      return {false, true, static_cast<std::int64_t>(v), v, 0};
    case Type::s64:
    case Type::pred:
      return {false, false, static_cast<std::int64_t>(v), 0, 0};
    case Type::f32:
      return {true, false, 0, 0, f32(v)};
    case Type::f64:
      return {true, false, 0, 0, f64(v)};
  }
  return {};
}

/// Float to integer: toward zero, saturating, NaN to 0 (PTX's cvt.rzi).
template <typename I>
I saturate(double d) {
  if (std::isnan(d)) return 0;
  d = std::trunc(d);
  if (d <= static_cast<double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (d >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(d);
}

std::uint64_t convert(Type to, Type from, std::uint64_t v) {
  const Wide w = widen(from, v);
  switch (to) {
    case Type::f32:
      return bits(w.floating      ? static_cast<float>(w.d)
                  : w.is_unsigned ? static_cast<float>(w.u)
                                  : static_cast<float>(w.i));
    case Type::f64:
      return bits(w.floating      ? w.d
                  : w.is_unsigned ? static_cast<double>(w.u)
                                  : static_cast<double>(w.i));
    case Type::u32:
      return w.floating ? saturate<std::uint32_t>(w.d) : static_cast<std::uint32_t>(w.i);
    case Type::s32:
      return static_cast<std::uint32_t>(w.floating ? saturate<std::int32_t>(w.d)
                                                   : static_cast<std::int32_t>(w.i));
    case Type::u64:
      return w.floating ? saturate<std::uint64_t>(w.d) : static_cast<std::uint64_t>(w.i);
    case Type::s64:
    case Type::pred:
      return static_cast<std::uint64_t>(w.floating ? saturate<std::int64_t>(w.d) : w.i);
  }
  return 0;
}

template <typename F>
F floating(Op op, F x, F y, F z) {
  switch (op) {
    case Op::add:
      return x + y;
    case Op::sub:
      return x - y;
    case Op::mul:
      return x * y;
    case Op::div:
      return x / y;
    case Op::mad:
      return std::fma(x, y, z);
    case Op::min:
      return std::fmin(x, y);
    case Op::max:
      return std::fmax(x, y);
    case Op::ex2:
      return std::exp2(x);
    case Op::sqrt:
      return std::sqrt(x);
    default:
      return 0;
  }
}

/// Integer arithmetic in U, wrapping; signed operations in S.
template <typename U, typename S>
U integer(Op op, bool is_signed, U x, U y, U z) {
  const auto sx = static_cast<S>(x), sy = static_cast<S>(y);
  switch (op) {
    case Op::add:
      return x + y;
    case Op::sub:
      return x - y;
    case Op::mul:
      return x * y;
    case Op::mad:
      return x * y + z;
    // Division by zero is undefined in PTX: all ones here.
    case Op::div:
      if (y == 0) return static_cast<U>(~U{0});
      return is_signed ? static_cast<U>(sy == -1 ? U{0} - x : static_cast<U>(sx / sy)) : x / y;
    case Op::rem:
      if (y == 0) return x;
      return is_signed ? static_cast<U>(sy == -1 ? S{0} : sx % sy) : x % y;
    case Op::min:
      return is_signed ? static_cast<U>(std::min(sx, sy)) : std::min(x, y);
    case Op::max:
      return is_signed ? static_cast<U>(std::max(sx, sy)) : std::max(x, y);
    default:
      return 0;
  }
}

/// The result of a two- or three-operand arithmetic instruction of type `t`, as register bits.
std::uint64_t arithmetic(Op op, Type t, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  switch (t) {
    case Type::f32:
      return bits(floating(op, f32(a), f32(b), f32(c)));
    case Type::f64:
      return bits(floating(op, f64(a), f64(b), f64(c)));
    case Type::s32:
    case Type::u32:
      return integer<std::uint32_t, std::int32_t>(op, t == Type::s32, static_cast<std::uint32_t>(a),
                                                  static_cast<std::uint32_t>(b),
                                                  static_cast<std::uint32_t>(c));
    case Type::s64:
    case Type::u64:
      return integer<std::uint64_t, std::int64_t>(op, t == Type::s64, a, b, c);
    case Type::pred:
      break;
  }
  return 0;
}

bool compare(Cmp cmp, Type t, std::uint64_t a, std::uint64_t b) {
  auto test = [cmp](auto x, auto y) {
    switch (cmp) {
      case Cmp::eq:
        return x == y;
      case Cmp::ne:
        return x < y || x > y;
      case Cmp::neu:
        return x != y;
      case Cmp::lt:
        return x < y;
      case Cmp::le:
        return x <= y;
      case Cmp::gt:
        return x > y;
      case Cmp::ge:
        return x >= y;
    }
    return false;
  };
  switch (t) {
    case Type::u32:
      return test(static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b));
    case Type::s32:
      return test(static_cast<std::int32_t>(a), static_cast<std::int32_t>(b));
    case Type::u64:
      return test(a, b);
    case Type::s64:
      return test(static_cast<std::int64_t>(a), static_cast<std::int64_t>(b));
    case Type::f32:
      return test(f32(a), f32(b));
    case Type::f64:
      return test(f64(a), f64(b));
    case Type::pred:
      return test(a != 0, b != 0);
  }
  return false;
}

/// Register bits of an element of type `t` read from memory.
std::uint64_t load_element(Type t, const unsigned char* at) {
  std::uint64_t v = 0;
  std::memcpy(&v, at, bytes_of(t));
  return v;
}

/// Uninitialised registers and shared memory hold this: NaN as a float, an address nowhere.
constexpr std::uint64_t kPoison = 0x7fbadbad7fbadbadULL;
constexpr unsigned char kPoisonByte = 0xff;

/// Who last wrote and read a 4-byte granule of memory, and in which barrier phase. Phases are
/// numbered across the whole run, so a phase names its block too.
struct Stamp {
  static constexpr std::uint64_t kMany = ~std::uint64_t{0};
  std::uint32_t previous = 0;     // the granule's value before the last write
  std::uint64_t writer = 0;       // thread of the launch
  std::uint64_t write_phase = 0;  // 0: never
  std::uint64_t reader = 0;       // kMany: several threads
  std::uint64_t read_phase = 0;
  std::uint64_t read_block = 0;  // of the last reader
  int write_line = 0;
  int read_line = 0;
};

/// The (x, y, z) of the `linear`-th thread of a block, or block of a grid, of `dims`.
std::array<std::uint64_t, 3> coordinates(std::uint64_t linear, const Dim3& dims) {
  return {linear % dims.x, linear / dims.x % dims.y, linear / dims.x / dims.y};
}

/// The fault of a launch past its `limit` of instructions (a kernel that does not end); out of
/// line, as the lockstep run passes next to it at each instruction.
[[gnu::cold]] Outcome too_long(std::uint64_t limit) {
  return {Fault::too_long, fmt::format("more than {} instructions", limit)};
}

/// The fault of warp `warp` of block `ctaid` when two of its running lanes, of `tids`, are at
/// `pcs` after the instruction at `line`.
[[gnu::cold]] Outcome diverged(const Entry& entry, int line, std::uint64_t warp,
                               const std::array<std::uint64_t, 3>& ctaid,
                               const std::array<std::array<std::uint64_t, 3>, 2>& tids,
                               const std::array<std::uint32_t, 2>& pcs) {
  auto line_at = [&](std::uint32_t pc) {
    return pc < entry.code.size() ? fmt::format("line {}", entry.code[pc].line)
                                  : std::string("the end");
  };
  return {Fault::refused,
          fmt::format("line {}: warp {} of block ({},{},{}) diverges, thread ({},{},{}) going to "
                      "{} and thread ({},{},{}) to {}; counting runs the lanes of a warp in "
                      "lockstep",
                      line, warp, ctaid[0], ctaid[1], ctaid[2], tids[0][0], tids[0][1], tids[0][2],
                      line_at(pcs[0]), tids[1][0], tids[1][1], tids[1][2], line_at(pcs[1]))};
}

/// `warps` summed by class and by the backbone instruction named in the lines' comments.
Counts summed(const Entry& entry, const WarpCounts& warps) {
  Counts counts;
  counts.barriers_per_block = warps.barriers_per_block;
  for (std::size_t pc = 0; pc < warps.by_pc.size(); ++pc) {
    const Issued& n = warps.by_pc[pc];
    if (n.warp_instructions == 0) continue;
    const auto per_issue = issued(entry.code[pc]);
    for (std::size_t c = 0; c < perf_model::kInstrClasses; ++c) {
      counts.warp_instructions[c] += per_issue[c] * n.warp_instructions;
    }
    counts.global_sectors += n.sectors;
    counts.shared_wavefronts += n.wavefronts;
    if (entry.names[pc].empty()) continue;
    InstructionCounts& named = counts.by_instruction[entry.names[pc]];
    for (std::size_t c = 0; c < perf_model::kInstrClasses; ++c) {
      named.warp_instructions[c] += per_issue[c] * n.warp_instructions;
    }
    named.sectors += n.sectors;
    named.wavefronts += n.wavefronts;
    named.active_accesses += n.active_accesses;
  }
  return counts;
}

/// A region of global memory a launch may change.
struct Region {
  unsigned char* at;
  std::uint64_t bytes;
};

}  // namespace

Outcome Module::Impl::execute(const Entry& entry, const Launch& launch, bool reverse,
                              std::uint64_t& executed, std::string& first_race, WarpCounts* warps) {
  const Dim3 block = launch.block;
  const std::uint64_t threads = block.count();
  const std::uint64_t blocks = launch.grid.count();
  const std::size_t registers = entry.registers.size();
  std::vector<std::uint64_t> regs(threads * registers);
  std::vector<std::uint32_t> pcs(threads);
  // What %clock64 reads: the instructions the thread executed in its block so far, so that the
  // clocks a thread reads do not depend on the order the threads run in. %globaltimer reads the
  // same, as nanoseconds of a 1 GHz clock. Kept only for an entry that reads them.
  std::vector<std::uint64_t> clocks(threads);
  const bool clocked = entry.reads_clock;
  enum class State : std::uint8_t { running, at_barrier, done };
  std::vector<State> states(threads);
  std::vector<unsigned char> shared(entry.shared_bytes);
  std::vector<Stamp> shared_stamps(entry.shared_bytes / 4 + 1);
  std::unordered_map<std::uint64_t, Stamp> global_stamps;
  std::uint64_t phase = 0;

  auto thread_name = [&](std::uint64_t launch_thread) {
    const auto [tx, ty, tz] = coordinates(launch_thread % threads, block);
    const auto [bx, by, bz] = coordinates(launch_thread / threads, launch.grid);
    return fmt::format("thread ({},{},{}) of block ({},{},{})", tx, ty, tz, bx, by, bz);
  };
  auto shared_name = [&](std::uint64_t offset) {
    for (const SharedArray& a : entry.shared) {
      if (offset >= a.offset && offset < a.offset + a.bytes) {
        return fmt::format("{}+{}", a.name, offset - a.offset);
      }
    }
    return fmt::format("shared offset {}", offset);
  };
  // Records an access by `who` at `line` to a granule that holds `now` and that a write makes
  // `mine`; says how it races with another thread's access when it changes or reads a value
  // that access may see otherwise (phases of the same block are ordered by barriers, phases of
  // other blocks never are). Inlined by force: it runs at every 4 bytes accessed, from a
  // function too large for the compiler to inline it on its own.
  auto stamp = [&](Stamp & s, std::uint64_t who, bool write, int line, std::uint32_t now,
                   std::uint32_t mine) __attribute__((always_inline))
                   ->std::optional<std::string> {
    auto unordered = [&](std::uint64_t other, std::uint64_t other_phase) {
      if (other_phase == 0 || other == who) return false;
      return other_phase == phase || other / threads != who / threads;
    };
    std::optional<std::string> race;
    const bool changes = write && now != mine;
    if (unordered(s.writer, s.write_phase) && (changes || (!write && s.previous != now))) {
      race = fmt::format("{} at line {} {} what {} wrote at line {}", thread_name(who), line,
                         write ? "overwrites" : "reads", thread_name(s.writer), s.write_line);
    } else if (changes && s.read_phase != 0 && s.reader != who &&
               (s.read_phase == phase || s.read_block != who / threads)) {
      race = fmt::format(
          "{} at line {} overwrites what {} read at line {}", thread_name(who), line,
          s.reader == Stamp::kMany ? std::string("other threads") : thread_name(s.reader),
          s.read_line);
    }
    if (write) {
      s.previous = now;
      s.writer = who;
      s.write_phase = phase;
      s.write_line = line;
    } else if (s.read_phase != phase) {
      s.reader = who;
      s.read_phase = phase;
      s.read_block = who / threads;
      s.read_line = line;
    } else if (s.reader != who) {
      s.reader = Stamp::kMany;
      s.read_line = line;
    }
    return race;
  };

  if (warps != nullptr) warps->by_pc.assign(entry.code.size(), Issued{});
  // Threads run in groups: all the block's, each to its next barrier in turn; or warps of 32,
  // each an instruction at a time for all its running lanes. One loop for both keeps the
  // instructions' semantics in one place, inlined as the emulator's inner loop needs.
  const std::uint64_t lanes_per_group = warps != nullptr ? 32 : threads;
  // In locals, not read from `launch` and `executed` at each instruction: the stores to the
  // emulated registers, 64-bit integers too, might alias them.
  const std::uint64_t limit = launch.max_instructions;
  std::uint64_t instructions = executed;
  // The %tid of each thread, computed once: lockstep goes from lane to lane at each instruction.
  std::vector<std::array<std::uint64_t, 3>> tids(threads);
  for (std::uint64_t t = 0; t < threads; ++t) tids[t] = coordinates(t, block);
  std::array<perf_model::LaneAccess, 32> accesses;

  for (std::uint64_t i = 0; i < blocks; ++i) {
    const std::uint64_t b = reverse ? blocks - 1 - i : i;
    std::fill(regs.begin(), regs.end(), kPoison);
    std::fill(pcs.begin(), pcs.end(), 0);
    std::fill(clocks.begin(), clocks.end(), 0);
    std::fill(states.begin(), states.end(), State::running);
    std::fill(shared.begin(), shared.end(), kPoisonByte);
    std::fill(shared_stamps.begin(), shared_stamps.end(), Stamp{});  // each block has its own
    const std::array<std::uint64_t, 3> ctaid = coordinates(b, launch.grid);
    // The special registers but %tid, in the order of kSpecials.
    const std::uint64_t special[12] = {
        0,        0,        0,        block.x,       block.y,       block.z,
        ctaid[0], ctaid[1], ctaid[2], launch.grid.x, launch.grid.y, launch.grid.z};
    std::uint64_t barriers = 0;
    ++phase;
    while (true) {
      for (std::uint64_t first = 0; first < threads; first += lanes_per_group) {
        const std::uint64_t end = std::min(threads, first + lanes_per_group);
        int last_line = 0;  // of the warp's last instruction
        while (true) {
          std::uint32_t warp_pc = 0;
          bool warp_global = false;  // a global load or store
          std::size_t active = 0;
          if (warps != nullptr) {
            // The warp's instruction: that of its running lanes, which must agree.
            std::uint64_t leader = end;
            for (std::uint64_t t = first; t < end; ++t) {
              if (states[t] != State::running) continue;
              if (leader == end) {
                leader = t;
              } else if (pcs[t] != pcs[leader]) {
                return diverged(entry, last_line, first / 32, ctaid, {tids[leader], tids[t]},
                                {pcs[leader], pcs[t]});
              }
            }
            if (leader == end) break;  // at a barrier or done
            warp_pc = pcs[leader];
            // The lanes it accesses memory for (those whose guard holds), before they run it:
            // a load may overwrite its address register.
            if (warp_pc < entry.code.size()) {
              const Inst& in = entry.code[warp_pc];
              last_line = in.line;
              warp_global = in.op == Op::ld_global || in.op == Op::st_global;
              if (warp_global || in.op == Op::ld_shared || in.op == Op::st_shared) {
                for (std::uint64_t t = leader; t < end; ++t) {
                  const std::uint64_t* r = regs.data() + t * registers;
                  if (states[t] != State::running || !guard_holds(in, r)) continue;
                  accesses[active++] = {static_cast<std::uint32_t>(t - first),
                                        r[in.address] + static_cast<std::uint64_t>(in.offset),
                                        static_cast<std::uint32_t>(bytes_of(in.type) * in.width)};
                }
              }
            }
          }
          for (std::uint64_t k = first; k < end; ++k) {
            const std::uint64_t t = reverse ? first + end - 1 - k : k;
            if (states[t] != State::running) continue;
            std::uint64_t* r = regs.data() + t * registers;
            const std::uint64_t who = b * threads + t;
            const std::array<std::uint64_t, 3>& tid = tids[t];
            auto value = [&](const Operand& o) -> std::uint64_t {
              switch (o.kind) {
                case Operand::Kind::reg:
                  return r[o.index];
                case Operand::Kind::imm:
                  return o.imm;
                case Operand::Kind::special:
                  return o.index < 3 ? tid[o.index] : special[o.index];
                case Operand::Kind::none:
                  break;
              }
              return 0;
            };
            std::uint32_t pc = pcs[t];
            // The thread's clock goes on from here: clocks[t] + instructions while it runs.
            if (clocked) clocks[t] -= instructions;
            // A thread runs to its next barrier; a lane of a warp, one instruction: its budget
            // stops it there, with no test in the loop beyond the launch's limit.
            const std::uint64_t budget =
                warps != nullptr ? std::min(instructions + 1, limit) : limit;
            while (states[t] == State::running) {
              // Past the last instruction, a thread ends as at `ret`.
              if (pc >= entry.code.size()) {
                states[t] = State::done;
                break;
              }
              if (++instructions > budget) {
                if (instructions > limit) return too_long(limit);
                --instructions;  // a lane's one instruction ran
                break;
              }
              const Inst& in = entry.code[pc++];
              if (!guard_holds(in, r)) continue;
              switch (in.op) {
                case Op::ld_param: {
                  r[in.dst.index] = load_element(
                      in.type, static_cast<const unsigned char*>(launch.params[in.address]));
                  break;
                }
                case Op::ld_global:
                case Op::st_global:
                case Op::ld_shared:
                case Op::st_shared: {
                  const bool write = in.op == Op::st_global || in.op == Op::st_shared;
                  const bool global = in.op == Op::ld_global || in.op == Op::st_global;
                  const std::uint64_t element = bytes_of(in.type);
                  const std::uint64_t size = element * in.width;
                  const std::uint64_t address =
                      r[in.address] + static_cast<std::uint64_t>(in.offset);
                  if (address % size != 0) {
                    return {Fault::misaligned_address,
                            fmt::format("line {}: {} {}s {} bytes at {:#x}, not a multiple of {}",
                                        in.line, thread_name(who), write ? "store" : "load", size,
                                        address, size)};
                  }
                  if (global ? !global_valid(launch, address, size)
                             : address + size > shared.size()) {
                    return {
                        Fault::illegal_address,
                        fmt::format("line {}: {} {}s {} bytes at {} {:#x}, outside {}", in.line,
                                    thread_name(who), write ? "store" : "load", size,
                                    global ? "global address" : "shared offset", address,
                                    global ? "every allocation"
                                           : fmt::format("the block's {} bytes", shared.size()))};
                  }
                  unsigned char* at =
                      global ? reinterpret_cast<unsigned char*>(address) : shared.data() + address;
                  // What the access leaves in memory (a write) or in registers (a read).
                  unsigned char data[32];
                  if (write) {
                    for (std::uint32_t e = 0; e < in.width; ++e) {
                      const std::uint64_t v = value(in.values[e]);
                      std::memcpy(data + e * element, &v, element);
                    }
                  } else {
                    std::memcpy(data, at, size);
                  }
                  for (std::uint64_t w = 0; w < size / 4; ++w) {
                    const std::uint64_t g = address / 4 + w;
                    std::uint32_t now;
                    std::uint32_t mine;
                    std::memcpy(&now, at + 4 * w, 4);
                    std::memcpy(&mine, data + 4 * w, 4);
                    auto race = stamp(global ? global_stamps[g] : shared_stamps[g], who, write,
                                      in.line, now, mine);
                    if (race && first_race.empty()) {
                      first_race = fmt::format(
                          "on {}: {}",
                          global ? fmt::format("global address {:#x}", 4 * g) : shared_name(4 * g),
                          *race);
                    }
                  }
                  if (write) {
                    std::memcpy(at, data, size);
                  } else {
                    for (std::uint32_t e = 0; e < in.width; ++e) {
                      r[in.values[e].index] = load_element(in.type, data + e * element);
                    }
                  }
                  break;
                }
                case Op::mov:
                  r[in.dst.index] = value(in.src[0]);
                  break;
                case Op::cvt:
                  r[in.dst.index] = convert(in.type, in.from, value(in.src[0]));
                  break;
                case Op::add:
                case Op::sub:
                case Op::mul:
                case Op::div:
                case Op::rem:
                case Op::mad:
                case Op::min:
                case Op::max:
                case Op::ex2:
                case Op::sqrt:
                  r[in.dst.index] = arithmetic(in.op, in.type, value(in.src[0]), value(in.src[1]),
                                               value(in.src[2]));
                  break;
                case Op::setp:
                  r[in.dst.index] = compare(in.cmp, in.type, value(in.src[0]), value(in.src[1]));
                  break;
                case Op::selp:
                  r[in.dst.index] = value(in.src[2]) != 0 ? value(in.src[0]) : value(in.src[1]);
                  break;
                case Op::and_pred:
                  r[in.dst.index] = (value(in.src[0]) != 0) && (value(in.src[1]) != 0);
                  break;
                case Op::bra:
                  pc = in.target;
                  break;
                case Op::bar:
                  states[t] = State::at_barrier;
                  break;
                case Op::ret:
                  states[t] = State::done;
                  break;
                case Op::clock:
                  r[in.dst.index] = clocks[t] + instructions;
                  break;
              }
            }
            pcs[t] = pc;
            if (clocked) clocks[t] += instructions;
          }
          if (warps == nullptr) break;
          if (warp_pc < entry.code.size()) {
            warps->by_pc[warp_pc].add(warp_global, {accesses.data(), active});
          }
        }
      }
      const auto waiting =
          static_cast<std::uint64_t>(std::count(states.begin(), states.end(), State::at_barrier));
      if (waiting == 0) break;
      if (waiting != threads) {
        const auto first = static_cast<std::uint64_t>(
            std::find(states.begin(), states.end(), State::at_barrier) - states.begin());
        return {Fault::barrier,
                fmt::format("line {}: bar.sync reached by {} of the {} threads of the block of {}; "
                            "the others ended",
                            entry.code[pcs[first] - 1].line, waiting, threads,
                            thread_name(b * threads + first))};
      }
      std::fill(states.begin(), states.end(), State::running);
      ++phase;
      ++barriers;
    }
    if (warps != nullptr) {
      warps->barriers_per_block = std::max(warps->barriers_per_block, barriers);
    }
  }
  executed = instructions;
  return {};
}

bool Module::Impl::global_valid(const Launch& launch, std::uint64_t address,
                                std::uint64_t bytes) const {
  for (const auto& [name, g] : globals) {
    if (address >= g.address && address + bytes <= g.address + g.bytes) return true;
  }
  for (const auto& [start, size] : launch.allocations) {
    if (address >= start && address + bytes <= start + size) return true;
  }
  return false;
}

Outcome Module::Impl::run(const Entry& entry, const Launch& launch) {
  const Dim3 block = launch.block;
  if (entry.has_reqntid &&
      (block.x != entry.reqntid.x || block.y != entry.reqntid.y || block.z != entry.reqntid.z)) {
    return {Fault::refused,
            fmt::format("a block of {}x{}x{} threads for .reqntid {}, {}, {}", block.x, block.y,
                        block.z, entry.reqntid.x, entry.reqntid.y, entry.reqntid.z)};
  }
  // Threads of a GPU run in any order: run them in two, threads and blocks in reverse first,
  // and compare what each leaves in memory. A race between threads matters only when it
  // changes that, so races on values no thread uses (a load whose register is written again
  // before any use, a store of the value already there) pass.
  std::vector<Region> memory;
  for (const auto& [start, size] : launch.allocations) {
    memory.push_back({reinterpret_cast<unsigned char*>(start), size});
  }
  for (const auto& [name, g] : globals) {
    memory.push_back({reinterpret_cast<unsigned char*>(g.address), g.bytes});
  }
  std::vector<std::vector<unsigned char>> before;
  for (const Region& m : memory) before.emplace_back(m.at, m.at + m.bytes);
  std::uint64_t executed = 0;
  std::string first_race;
  if (Outcome o = execute(entry, launch, /*reverse=*/true, executed, first_race);
      o.fault != Fault::none) {
    return o;
  }
  std::vector<std::vector<unsigned char>> reversed;
  for (std::size_t i = 0; i < memory.size(); ++i) {
    reversed.emplace_back(memory[i].at, memory[i].at + memory[i].bytes);
    std::memcpy(memory[i].at, before[i].data(), memory[i].bytes);
  }
  if (Outcome o = execute(entry, launch, /*reverse=*/false, executed, first_race);
      o.fault != Fault::none) {
    return o;
  }
  // The race when what the last run left in memory differs from what the first did.
  auto differs = [&]() -> std::optional<Outcome> {
    for (std::size_t i = 0; i < memory.size(); ++i) {
      for (std::uint64_t w = 0; w + 4 <= memory[i].bytes; w += 4) {
        std::uint32_t one;
        std::uint32_t other;
        std::memcpy(&one, reversed[i].data() + w, 4);
        std::memcpy(&other, memory[i].at + w, 4);
        if (one == other) continue;
        return Outcome{
            Fault::race,
            fmt::format("the results depend on the order in which threads run: {:#010x} or "
                        "{:#010x} at global address {:#x}; first race {}",
                        one, other, reinterpret_cast<std::uint64_t>(memory[i].at + w),
                        first_race.empty() ? std::string("unseen") : first_race)};
      }
    }
    return std::nullopt;
  };
  if (std::optional<Outcome> race = differs()) return *race;
  if (!launch.count) return {};
  // Counting runs warps in lockstep, a third order: its results must be the same too. Its own
  // instruction budget, as the limit is on the two runs above.
  for (std::size_t i = 0; i < memory.size(); ++i) {
    std::memcpy(memory[i].at, before[i].data(), memory[i].bytes);
  }
  WarpCounts warps;
  std::uint64_t counted_executed = 0;
  if (Outcome o = execute(entry, launch, /*reverse=*/false, counted_executed, first_race, &warps);
      o.fault != Fault::none) {
    return o;
  }
  if (std::optional<Outcome> race = differs()) return *race;
  Outcome counted;
  counted.counts = summed(entry, warps);
  return counted;
}

Module::Module(const std::string& ptx) : impl_(std::make_unique<Impl>()) { impl_->parse(ptx); }

Module::~Module() = default;

Outcome Module::run(const std::string& name, const Launch& launch) {
  return impl_->run(impl_->entries.at(name), launch);
}

}  // namespace sculpt::ptx_emulator
