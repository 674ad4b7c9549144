#pragma once
// The fixed layout of a decision vector for one backbone: where each choice's instances
// live in the block, the integer universes and the initial (full) domains. Computed once per
// backbone and shared read-only by every candidate, which copies only the block.
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "spacegen/runtime/domain.h"
#include "spacegen/runtime/space_table.h"

namespace sculpt::spacegen {

/// The slot of an id outside a set's `all_ids`.
inline constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};

struct ChoiceLayout {
  ChoiceKind kind = ChoiceKind::Enum;
  std::size_t offset = 0;  // bytes from the start of the block
  std::size_t stride = 0;  // bytes per instance; 0 for packed enums
  std::uint8_t bits = 0;   // packed enums (see packs_domains): bits per instance
  std::uint32_t arity = 0;
  std::array<std::uint32_t, kMaxArity> sets{};  // the (membership) set of each argument
  std::array<std::uint32_t, kMaxArity> caps{};  // stored slots of each argument's set
  bool triangular = false;                      // symmetric/antisymmetric: only a < b is stored
  std::size_t count = 0;                        // number of stored instances
  std::size_t first_instance = 0;               // global numbering of instances, for the worklist
  std::size_t num_values = 0;                   // enum
  std::uint8_t counter_fields = 0;              // counters: CounterField bits
  // Integers: the universe of instance i is universe[universe_start[i] .. universe_start[i+1]).
  std::vector<std::int64_t> universe;
  std::vector<std::uint32_t> universe_start;
  std::vector<bool> universe_known;

  /// The stored domain of enum instance `index` of a block.
  ValueSet enum_domain(const unsigned char* block, std::size_t index) const {
    if (bits != 0) return load_packed(block + offset, index, bits);
    ValueSet domain = 0;
    std::memcpy(&domain, block + offset + index * stride, stride);  // little-endian: low bytes
    return domain;
  }
  void set_enum_domain(unsigned char* block, std::size_t index, ValueSet domain) const {
    if (bits != 0) return store_packed(block + offset, index, bits, domain);
    std::memcpy(block + offset + index * stride, &domain, stride);
  }
};

/// The counter part of the block: derived bounds from the increments and the bounds imposed
/// by constraints. The value seen by conditions is their intersection.
struct CounterState {
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  std::int64_t min_bound = -kInfinity;
  std::int64_t max_bound = kInfinity;
  Interval value() const { return {std::max(lo, min_bound), std::min(hi, max_bound)}; }
};

/// The fields of a CounterState a counter stores besides `lo`: half counters keep no `hi`
/// (always kInfinity), and a bound propagation never imposes on that counter is not stored
/// (always infinite).
enum CounterField : std::uint8_t { kCounterHi = 1, kCounterMin = 2, kCounterMax = 4 };

/// Counter fields are stored in 32 bits: sizes, counts and limits fit. Saturated values have
/// their own codes; a value beyond the codes (a product of large sizes) is kept aside by the
/// candidate, its field holding kWideCode.
inline constexpr std::int32_t kPlusInfinityCode = std::numeric_limits<std::int32_t>::max();
inline constexpr std::int32_t kMinusInfinityCode = std::numeric_limits<std::int32_t>::min();
inline constexpr std::int32_t kWideCode = kMinusInfinityCode + 1;

inline std::int32_t counter_code(std::int64_t v) {
  if (v >= kInfinity) return kPlusInfinityCode;
  if (v <= -kInfinity) return kMinusInfinityCode;
  if (v <= kWideCode || v >= kPlusInfinityCode) return kWideCode;
  return static_cast<std::int32_t>(v);
}
/// The value of a code other than kWideCode.
inline std::int64_t counter_code_value(std::int32_t code) {
  if (code == kPlusInfinityCode) return kInfinity;
  if (code == kMinusInfinityCode) return -kInfinity;
  return code;
}

inline std::size_t counter_bytes(std::uint8_t fields) {
  return sizeof(std::int32_t) * (1 + static_cast<std::size_t>(std::popcount(fields)));
}

/// Reads the stored fields, in slot order: `lo`, then `hi`, `min_bound` and `max_bound` when
/// `fields` names them (numbered 0 to 3). `wide(field)`: the value of a field whose slot holds
/// kWideCode.
template <typename Wide>
[[gnu::always_inline]] inline CounterState read_counter(const unsigned char* slot,
                                                        std::uint8_t fields, Wide&& wide) {
  CounterState s;
  auto next = [&](std::int64_t& v, unsigned field) {
    std::int32_t code;
    std::memcpy(&code, slot, sizeof code);
    slot += sizeof code;
    v = code == kWideCode ? wide(field) : counter_code_value(code);
  };
  next(s.lo, 0);
  s.hi = kInfinity;
  if (fields & kCounterHi) next(s.hi, 1);
  if (fields & kCounterMin) next(s.min_bound, 2);
  if (fields & kCounterMax) next(s.max_bound, 3);
  return s;
}
/// Writes the stored fields only. `wide(field, value)` keeps the value of a field that needs
/// kWideCode; `wide(field, std::nullopt)` drops that of a field that held it and no longer does.
template <typename Wide>
void write_counter(unsigned char* slot, std::uint8_t fields, const CounterState& state,
                   Wide&& wide) {
  auto next = [&](std::int64_t v, unsigned field) {
    const std::int32_t code = counter_code(v);
    std::int32_t old;
    std::memcpy(&old, slot, sizeof old);
    if (code == kWideCode) {
      wide(field, std::optional<std::int64_t>(v));
    } else if (old == kWideCode) {
      wide(field, std::optional<std::int64_t>());
    }
    std::memcpy(slot, &code, sizeof code);
    slot += sizeof code;
  };
  next(state.lo, 0);
  if (fields & kCounterHi) next(state.hi, 1);
  if (fields & kCounterMin) next(state.min_bound, 2);
  if (fields & kCounterMax) next(state.max_bound, 3);
}

class Layout;

/// The values of one static filter (a host-code condition over at most two objects, evaluated
/// once per object tuple): per tuple 0 not computed yet, 1 false, 2 true, at
/// slot(a0) * slots(set of a1) + slot(a1). Also, per argument, the tuples known to hold as
/// bitsets over that argument's ids, one per slot of the other argument: a propagator's loop
/// over that argument skips them when the filter satisfies all it checks. Shared by the threads
/// of a layout family: entries only go from unknown to known, with the same value whoever
/// computes it, so relaxed atomics suffice.
class FilterTable {
 public:
  FilterTable(const Layout& layout, const std::vector<std::uint32_t>& sets);
  std::atomic<std::uint8_t>* values() { return values_.data(); }
  /// Stores the value of the tuple `ids` (one id per argument).
  void record(const Layout& layout, const ObjectId* ids, bool value);
  /// The ids of argument `free` for which the filter is known to hold with the other argument
  /// `other` (ignored for one argument), a bit per id.
  std::span<const std::atomic<std::uint64_t>> holding(const Layout& layout, unsigned free,
                                                      ObjectId other) const;

 private:
  std::vector<std::uint32_t> sets_;
  std::vector<std::atomic<std::uint8_t>> values_;
  /// Per argument: words per row (over its set's ids) and the rows, one per slot of the other.
  std::array<std::size_t, 2> words_{};
  std::array<std::vector<std::atomic<std::uint64_t>>, 2> holding_;
};

/// The layouts a root layout grows into as lowerings add objects, one per vector of stored
/// slots, made once and shared by every candidate of the root. A candidate on a grown layout
/// holds the family (the layout is an alias into it), so the family outlives the root.
struct LayoutFamily : std::enable_shared_from_this<LayoutFamily> {
  std::mutex mutex;
  std::map<std::vector<std::uint32_t>, std::unique_ptr<const Layout>> grown;
  /// The static filters' tables, shared by the whole family.
  std::vector<FilterTable> filters;
};

class Layout {
 public:
  /// The slot of an object among the objects its set may ever hold: its rank in the set's
  /// `all_ids`, or its id when the set (and its supersets) have none. Instances are numbered
  /// over slots.
  std::uint32_t slot(std::size_t set, ObjectId id) const {
    return set_rank[set].empty() ? id : set_rank[set][id];
  }
  /// The slots a choice must store for `ids`, members of `set`: their highest slot + 1, and at
  /// least `stored`.
  template <typename Ids>
  std::uint32_t stored_slots(std::size_t set, const Ids& ids, std::uint32_t stored = 0) const {
    for (ObjectId id : ids) stored = std::max(stored, slot(set, id) + 1);
    return stored;
  }
  /// Whether the set may ever hold the object.
  bool potential(std::size_t set, ObjectId id) const {
    return id < set_capacity[set] && slot(set, id) != kNoSlot;
  }
  /// Index of the stored instance over `ids` (in stored order for triangular choices).
  std::size_t index(std::size_t choice, const ObjectId* ids) const;
  void decode(std::size_t choice, std::size_t index, ObjectId* ids) const;
  std::span<const std::int64_t> universe(std::size_t choice, std::size_t index) const {
    const ChoiceLayout& c = choices[choice];
    return {c.universe.data() + c.universe_start[index],
            c.universe.data() + c.universe_start[index + 1]};
  }
  std::size_t member_offset(std::size_t set) const { return set_offset[set]; }
  /// Where the stored instance `index` of `choice` lies in `grown`, a layout of the same
  /// family with at least as many stored slots per set.
  std::size_t index_in(const Layout& grown, std::size_t choice, std::size_t index) const;
  /// This layout with room for `stored` slots per set (each at least this one's).
  std::shared_ptr<const Layout> grown(const std::vector<std::uint32_t>& stored) const;

  std::vector<ChoiceLayout> choices;
  std::vector<std::size_t> set_offset;  // membership bitsets (plain sets only)
  std::size_t sets_bytes = 0;           // the membership bitsets open the block
  std::vector<std::uint32_t> set_capacity;
  std::vector<std::uint32_t> set_slots;  // objects the set may ever hold
  /// Slots with room in the block: up to the highest slot of a member, so objects lowerings
  /// may add cost nothing until they exist (the layout then grows).
  std::vector<std::uint32_t> set_stored;
  std::vector<std::vector<std::uint32_t>> set_rank;  // id -> slot; empty: the identity
  std::vector<std::vector<ObjectId>> set_ids;        // slot -> id; empty: the identity
  std::vector<std::size_t> trigger_bits;  // "already fired" bitsets, over potential slots
  std::vector<std::size_t> trigger_offset;
  /// Host-code conditions per object tuple: the values of each filter's table (FilterTable,
  /// in the family), read inline by the propagators. The layout fills the entries of the root's
  /// objects, and the first candidate to ask fills those of objects lowerings add.
  std::vector<std::atomic<std::uint8_t>*> static_filters;
  std::size_t instances = 0;
  std::size_t words = 0;  // block size in 64-bit words
  std::vector<std::uint64_t> initial;
  /// The family of the root layout, which owns it (`family_owner`); the grown layouts are
  /// owned by the family and leave `family_owner` empty.
  LayoutFamily* family = nullptr;
  std::shared_ptr<LayoutFamily> family_owner;

 private:
  friend class LayoutBuilder;
  /// The caps, counts and global numbering of the instances, from `set_stored`.
  void count_instances();
  /// Offsets of the choices and triggers (strides known), block size and full initial domains
  /// (membership left empty).
  void place();
};

/// Builds a Layout: declare the sets, their present members, the choices and the integer
/// universes, then finish() places everything and fills the full initial domains.
class LayoutBuilder {
 public:
  explicit LayoutBuilder(const SpaceTable& table);
  void set_capacity(std::size_t set, std::uint32_t capacity);
  /// The ids of every object `set` may ever hold (its `all_ids`); each must be one its superset
  /// may hold. A set without `all_ids` below one with it shares its superset's (`share_ids`).
  /// After set_capacity, supersets first.
  void set_all_ids(std::size_t set, std::vector<ObjectId> ids, std::optional<std::size_t> superset);
  void share_ids(std::size_t set, std::size_t superset);
  void add_member(std::size_t set, ObjectId id);
  std::uint32_t capacity(std::size_t set) const { return layout_.set_capacity[set]; }
  std::uint32_t slots(std::size_t set) const { return layout_.set_slots[set]; }
  std::uint32_t slot(std::size_t set, ObjectId id) const { return layout_.slot(set, id); }
  /// Static filter `k` over objects of `sets` (one or two), every tuple "not computed".
  void declare_filter(std::size_t k, std::vector<std::uint32_t> sets) {
    if (filters_.size() <= k) filters_.resize(k + 1);
    filters_[k].sets = std::move(sets);
  }
  /// The value of filter k for the tuple `ids`, members of its sets.
  void record_filter(std::size_t k, std::array<ObjectId, 2> ids, bool value) {
    filters_[k].values.push_back({ids, value});
  }
  bool has_member(std::size_t set, ObjectId id) const {
    return id < member_bits_[set].size() && member_bits_[set][id];
  }
  /// Valid after place_choices.
  std::size_t index(std::size_t choice, const ObjectId* ids) const {
    return layout_.index(choice, ids);
  }
  /// Must follow every set_capacity; lays out the choices.
  void place_choices();
  std::size_t instance_count(std::size_t choice) const { return layout_.choices[choice].count; }
  void set_universe(std::size_t choice, std::size_t index, std::vector<std::int64_t> values);
  /// Trigger `t` quantifies over (membership) sets `sets`.
  void add_trigger(std::size_t trigger, const std::vector<std::uint32_t>& sets);
  Layout finish();

 private:
  const SpaceTable& table_;
  Layout layout_;
  std::vector<std::vector<ObjectId>> members_;
  std::vector<std::vector<bool>> member_bits_;
  std::vector<std::vector<std::vector<std::int64_t>>> universes_;
  struct DeclaredFilter {
    std::vector<std::uint32_t> sets;
    std::vector<std::pair<std::array<ObjectId, 2>, bool>> values;
  };
  std::vector<DeclaredFilter> filters_;
};

}  // namespace sculpt::spacegen
