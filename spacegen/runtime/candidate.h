#pragma once
// The base of every generated candidate: the decision vector (one memcpy-able block of
// domains, counters, object membership and fired triggers), the propagation worklist, the
// conflict record, and the type-erased view the search uses (open instances, restriction,
// actions, hashing, serialization).
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstring>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spacegen/runtime/counter.h"
#include "spacegen/runtime/domain.h"
#include "spacegen/runtime/layout.h"
#include "spacegen/runtime/space_table.h"
#include "spacegen/runtime/triangle.h"
#include "support/check.h"

namespace sculpt::spacegen {

/// Where a restriction comes from: an entry of SpaceTable::origins and, for constraints, the
/// clause (1-based; 0 when not a clause).
struct Origin {
  std::uint32_t id = 0;
  std::uint32_t clause = 0;
};

/// Why a candidate died: the instance whose domain became empty and what emptied it, or an
/// action that could not be replayed and why.
struct Conflict {
  std::string origin;
  std::string location;
  std::uint32_t clause = 0;
  std::string choice;
  std::vector<ObjectId> objects;
  /// For an action apply() could not resolve: why (an unknown choice, object or value).
  std::string unresolved;
  std::string to_string() const;
};

/// A choice instance, objects in the choice's argument order.
struct InstanceRef {
  std::uint32_t choice = 0;
  std::vector<ObjectId> objects;
  friend bool operator==(const InstanceRef&, const InstanceRef&) = default;
};

/// A restriction in stable, readable form: `{"choice":name,"objects":[ids],"value":name}`
/// (or `"values":[names]` for a set of several values).
struct Action {
  std::string choice;
  std::vector<ObjectId> objects;
  std::vector<std::string> values;
  friend bool operator==(const Action&, const Action&) = default;
};
std::string to_json(const Action& action);
/// Parses one action; nullopt with a message in `error` for malformed text.
std::optional<Action> action_from_json(std::string_view text, std::string* error);

/// The members of a set in increasing id order, read word by word from its membership bitset,
/// less those of a bitset `Skip` (possibly shorter) when given. Propagation never adds members
/// (only instantiate_new_objects does, between loops), so a range stays valid while it is
/// iterated.
template <bool kSkips>
class BasicMemberRange {
 public:
  using Skip = std::span<const std::atomic<std::uint64_t>>;
  class Iterator {
   public:
    Iterator(const std::uint64_t* words, std::size_t num_words, ObjectId from, Skip skip)
        : words_(words), word_(from / 64), num_words_(num_words), skip_(skip) {
      if (word_ < num_words_) bits_ = word(word_) & (~std::uint64_t{0} << (from % 64));
      skip_empty_words();
    }
    ObjectId operator*() const {
      return static_cast<ObjectId>(word_ * 64 + static_cast<std::size_t>(std::countr_zero(bits_)));
    }
    Iterator& operator++() {
      bits_ &= bits_ - 1;
      skip_empty_words();
      return *this;
    }
    bool operator==(std::default_sentinel_t) const { return word_ >= num_words_; }

   private:
    std::uint64_t word(std::size_t w) const {
      if constexpr (kSkips) {
        if (w < skip_.size()) return words_[w] & ~skip_[w].load(std::memory_order_relaxed);
      }
      return words_[w];
    }
    void skip_empty_words() {
      while (bits_ == 0 && ++word_ < num_words_) bits_ = word(word_);
    }
    const std::uint64_t* words_;
    std::size_t word_;
    std::size_t num_words_;
    Skip skip_;
    std::uint64_t bits_ = 0;
  };
  BasicMemberRange(const std::uint64_t* words, std::size_t num_words, ObjectId from, Skip skip = {})
      : words_(words), num_words_(num_words), from_(from), skip_(skip) {}
  Iterator begin() const { return {words_, num_words_, from_, skip_}; }
  std::default_sentinel_t end() const { return {}; }

 private:
  const std::uint64_t* words_;
  std::size_t num_words_;
  ObjectId from_;
  Skip skip_;
};
using MemberRange = BasicMemberRange<false>;
using SkippingMemberRange = BasicMemberRange<true>;

namespace candidate_detail {
/// Dedup stamps of the worklist, per thread: stamp[i] == the epoch of the queue holding
/// instance i. Epochs are unique per thread, so candidates never mask each other's events.
/// Trivially destructible, so that reading it needs no per-access initialization check: the
/// storage is owned elsewhere (see start_queue).
struct QueueStamps {
  std::uint64_t* stamp = nullptr;
  std::size_t size = 0;
  std::uint64_t next_epoch = 1;
};
inline thread_local QueueStamps t_queue_stamps;
/// Worklist entries this thread has processed (see CandidateBase::wakeups_on_this_thread).
inline thread_local std::uint64_t t_wakeups = 0;
}  // namespace candidate_detail

class CandidateBase {
 public:
  virtual ~CandidateBase() = default;
  virtual std::unique_ptr<CandidateBase> clone() const = 0;
  virtual const SpaceTable& table() const = 0;
  const Layout& layout() const { return *layout_; }

  /// Runs the worklist to a fixpoint, firing triggers and instantiating the objects their
  /// lowerings add. On a conflict the candidate is dead and conflict() says why.
  Status propagate();
  const std::optional<Conflict>& conflict() const { return conflict_; }
  /// Changed instances whose propagators this thread has run (worklist entries processed),
  /// ever: the unit propagation works in, which benchmarks divide by decisions and by time.
  static std::uint64_t wakeups_on_this_thread() { return candidate_detail::t_wakeups; }

  // Type-erased view. Value indices are enum value indices or positions in an integer
  // instance's universe.
  /// Live, non-counter instances with more than one value left, in layout order.
  std::vector<InstanceRef> open_instances() const;
  /// How many there are, without building them (Chen's strata count them at every node).
  std::size_t open_instance_count() const { return count_live(/*open_only=*/true); }
  /// The first of them: the next decision of a search that decides in layout order
  /// (choices in declaration order); nullopt when the candidate is fully specified.
  std::optional<InstanceRef> first_open_instance() const;
  /// The first open instance of the first of `choices` that has one, each choice's instances in
  /// layout order: the next decision of a search that decides in its own order. Choices left out
  /// are never decided.
  std::optional<InstanceRef> first_open_instance(std::span<const std::uint32_t> choices) const;
  /// Every live non-counter instance.
  std::vector<InstanceRef> live_instances() const;
  /// How many there are: in a fully specified candidate, the instances its decisions and their
  /// propagation fixed.
  std::size_t live_instance_count() const { return count_live(/*open_only=*/false); }
  bool is_live(const InstanceRef& instance) const;
  std::vector<std::uint32_t> domain(const InstanceRef& instance) const;
  std::string value_name(const InstanceRef& instance, std::uint32_t value) const;
  /// Counters: the interval seen by conditions.
  Interval counter_value(const InstanceRef& instance) const;
  /// Restricts one instance to `values` then propagates.
  Status restrict(const InstanceRef& instance, const std::vector<std::uint32_t>& values);
  /// Resolves names; nullopt with a message for an unknown choice, object or value.
  std::optional<std::pair<InstanceRef, std::vector<std::uint32_t>>> resolve(
      const Action& action, std::string* error) const;
  Action make_action(const InstanceRef& instance, const std::vector<std::uint32_t>& values) const;
  /// Applies and propagates each action in order; stops at the first conflict. An action
  /// that does not name a live instance and known values is a conflict with origin "replay"
  /// that says why (Conflict::unresolved).
  Status apply(const std::vector<Action>& actions);

  std::uint64_t hash() const;
  /// Every live instance as `choice(ids) = {VALUES}`, one per line, in layout order.
  std::string to_string() const;
  std::size_t block_bytes() const { return block_.size() * sizeof(std::uint64_t); }
  [[gnu::always_inline]] bool is_member(std::size_t set, ObjectId id) const {
    return id < layout_->set_capacity[set] && ((member_words(set)[id / 64] >> (id % 64)) & 1);
  }

 protected:
  explicit CandidateBase(std::shared_ptr<const Layout> layout);
  CandidateBase(const CandidateBase&) = default;
  CandidateBase& operator=(const CandidateBase&) = default;

  /// Generated: wakes the propagators reading the changed instance. For enum instances `old` is
  /// the domain their propagators last saw: those that read the instance only through `is`
  /// conditions are skipped when none of these conditions changed its truth.
  virtual Status on_change(std::uint32_t choice, const ObjectId* ids, ValueSet old) = 0;
  /// Generated: restricts one stored instance to `mask` (enum bits or universe positions).
  virtual Status restrict_stored(std::uint32_t choice, const ObjectId* ids,
                                 const std::uint64_t* mask) = 0;
  /// Generated: runs a trigger's lowering on this candidate's backbone.
  virtual void run_trigger(std::uint32_t trigger, const ObjectId* ids) = 0;
  /// Generated: after lowerings, registers new objects and propagates what they bring.
  virtual Status instantiate_new_objects() = 0;
  /// Generated: quotient q's checks of element x, under every parameter tuple.
  virtual Status run_quotient_check(std::uint32_t quotient, ObjectId x) = 0;
  /// After new members are added: moves the block to a layout with room for their instances
  /// (their domains full, dormant until posted) when the current one has none, and has the
  /// search for the first open instance start over.
  void make_room_for_members();

  /// The slot of an object of a set with `all_ids` (see Layout::slot).
  std::uint32_t ranked_slot(std::size_t set, ObjectId id) const {
    return layout_->set_rank[set][id];
  }
  /// The membership bitset of a plain set (word aligned in the block).
  const std::uint64_t* member_words(std::size_t set) const {
    return block_.data() + layout_->set_offset[set] / 8;
  }
  const unsigned char* bytes() const {
    return reinterpret_cast<const unsigned char*>(block_.data());
  }
  unsigned char* bytes() { return reinterpret_cast<unsigned char*>(block_.data()); }
  template <typename T>
  static T load_at(const unsigned char* at) {
    T v;
    std::memcpy(&v, at, sizeof v);
    return v;
  }
  template <typename T>
  static void store_at(unsigned char* at, T v) {
    std::memcpy(at, &v, sizeof v);
  }
  /// The first slot of a choice's instances. Valid until lowerings add objects (the block
  /// grows only between propagation rounds), so propagators read through it in their loops.
  const unsigned char* slots(std::uint32_t choice) const {
    return bytes() + layout_->choices[choice].offset;
  }
  void add_member(std::size_t set, ObjectId id) {
    block_[layout_->set_offset[set] / 8 + id / 64] |= std::uint64_t{1} << (id % 64);
  }
  /// The membership bitset of a plain set, every word of its capacity.
  std::span<const std::uint64_t> member_bits(std::size_t set) const {
    return {member_words(set), (layout_->set_capacity[set] + 63) / 64};
  }
  /// The members of `set` with an id at least `from`, in increasing order.
  MemberRange members(std::size_t set, ObjectId from = 0) const {
    const std::span<const std::uint64_t> bits = member_bits(set);
    return {bits.data(), bits.size(), from};
  }
  /// The members of `set` but those for which static filter `filter` is known to hold, as its
  /// argument `free`, with `other` as the other argument (see FilterTable::holding).
  SkippingMemberRange members_unless(std::size_t set, std::size_t filter, unsigned free,
                                     ObjectId other) const {
    const std::span<const std::uint64_t> bits = member_bits(set);
    return {bits.data(), bits.size(), 0,
            layout_->family->filters[filter].holding(*layout_, free, other)};
  }

  std::span<const std::int64_t> universe(std::uint32_t choice, std::size_t index) const {
    if (layout_->choices[choice].universe_known[index]) return layout_->universe(choice, index);
    return added_universe(choice, index);
  }
  /// Whether the universe of an integer instance is known (from the layout or a lowering).
  bool has_universe(std::uint32_t choice, std::size_t index) const;
  /// For integer instances over objects a lowering added: records the universe.
  void add_universe(std::uint32_t choice, std::size_t index, std::vector<std::int64_t> values);
  IntDomainRef int_domain(std::uint32_t choice, std::size_t index) {
    const ChoiceLayout& l = layout_->choices[choice];
    return {bytes() + l.offset + index * l.stride, universe(choice, index)};
  }
  Interval int_bounds(std::uint32_t choice, std::size_t index) const {
    return const_cast<CandidateBase*>(this)->int_domain(choice, index).bounds();
  }
  [[gnu::always_inline]] CounterState counter_state(std::uint32_t choice, std::size_t index) const {
    const ChoiceLayout& l = layout_->choices[choice];
    return read_counter(bytes() + l.offset + index * l.stride, l.counter_fields,
                        [&](unsigned field) { return wide_counter_field(choice, index, field); });
  }
  /// A bound the generator found no constraint to impose has no room in the block.
  void set_counter_state(std::uint32_t choice, std::size_t index, const CounterState& s) {
    const ChoiceLayout& l = layout_->choices[choice];
    SCULPT_CHECK((l.counter_fields & kCounterMin) || s.min_bound == -kInfinity)
        << "a lower bound on counter " << table().choices[choice].name
        << ", which no constraint bounds from below";
    SCULPT_CHECK((l.counter_fields & kCounterMax) || s.max_bound == kInfinity)
        << "an upper bound on counter " << table().choices[choice].name
        << ", which no constraint bounds from above";
    write_counter(bytes() + l.offset + index * l.stride, l.counter_fields, s,
                  [&](unsigned field, const std::optional<std::int64_t>& value) {
                    set_wide_counter_field(choice, index, field, value);
                  });
  }

  /// Schedules the propagators of a changed instance (deduplicated until processed); `ids`
  /// are its objects in stored order. `old` is an enum instance's domain before the change (a
  /// second change before the propagators run keeps the first); 0 for integers and counters,
  /// whose propagators are always woken. Inline: every restriction that changes a domain
  /// calls it.
  void enqueue(std::uint32_t choice, std::size_t index, const std::array<ObjectId, kMaxArity>& ids,
               ValueSet old) {
    if (queue_.empty()) start_queue();
    std::uint64_t& stamp = queue_stamp(choice, index);
    if (stamp == queue_epoch_) return;
    stamp = queue_epoch_;
    queue_.push_back({choice, index, ids, old});
  }
  /// Schedules quotient q's checks of x for when the worklist drains, once however many
  /// equivalences between x and lower elements change meanwhile: a lowering settles many.
  void defer_quotient_check(std::uint32_t quotient, ObjectId x) {
    const DeferredCheck check{quotient, x};
    if (std::find(deferred_checks_.begin(), deferred_checks_.end(), check) ==
        deferred_checks_.end()) {
      deferred_checks_.push_back(check);
    }
  }
  /// Records a conflict on the instance and returns Status::Conflict.
  Status fail(Origin origin, std::uint32_t choice, const ObjectId* ids);
  /// Marks trigger `t` as fired for `ids` (objects of membership sets `sets`) and queues its
  /// lowering; false when it had already fired.
  bool fire_trigger(std::uint32_t trigger, const ObjectId* ids, std::size_t arity,
                    const std::uint32_t* sets);

  std::shared_ptr<const Layout> layout_;
  std::vector<std::uint64_t> block_;
  /// The state of the triangular choices, for the rows scans cache (spacegen/runtime/triangle.h).
  RowVersion triangle_rows_;

 private:
  struct PendingTrigger {
    std::uint32_t trigger;
    std::array<ObjectId, kMaxArity> ids;
  };
  /// The universes of integer instances over objects lowerings added (the layout holds the
  /// others), back to back in `values`: ranges[choice][index] is where the instance's lie, or
  /// kNoRange. Flat, so that reading a universe costs two lookups; shared by copies of a
  /// candidate, and copied before a write.
  struct ExtraUniverses {
    static constexpr std::pair<std::uint32_t, std::uint32_t> kNoRange{kNoSlot, kNoSlot};
    std::vector<std::int64_t> values;
    std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> ranges;
    bool has(std::uint32_t choice, std::size_t index) const {
      return choice < ranges.size() && index < ranges[choice].size() &&
             ranges[choice][index] != kNoRange;
    }
  };

  /// A counter field whose value has no 32-bit code (see counter_code).
  struct WideField {
    std::uint32_t choice;
    std::uint32_t index;
    std::uint32_t field;
    std::int64_t value;
  };
  std::int64_t wide_counter_field(std::uint32_t choice, std::size_t index, unsigned field) const;
  /// Keeps the value of a field, or drops it (nullopt).
  void set_wide_counter_field(std::uint32_t choice, std::size_t index, unsigned field,
                              const std::optional<std::int64_t>& value);

  /// Where first_open_instance starts looking, as an instance number of the layout: every
  /// instance before it is fixed or not live. Domains only shrink, so it only moves forward
  /// until lowerings add objects (and maybe a new layout) and reset it. The const
  /// first_open_instance writes it, possibly from several threads reading one candidate, each
  /// a valid value: relaxed atomics.
  class OpenHint {
   public:
    OpenHint() = default;
    OpenHint(const OpenHint& other) : next_(other.get()) {}
    OpenHint& operator=(const OpenHint& other) {
      set(other.get());
      return *this;
    }
    std::size_t get() const { return next_.load(std::memory_order_relaxed); }
    void set(std::size_t instance) const { next_.store(instance, std::memory_order_relaxed); }

   private:
    mutable std::atomic<std::size_t> next_{0};
  };

  /// A new epoch for an empty queue, with a stamp for every instance of the layout.
  void start_queue();
  /// This thread's dedup stamp of an instance.
  std::uint64_t& queue_stamp(std::uint32_t choice, std::size_t index) const {
    return candidate_detail::t_queue_stamps.stamp[layout_->choices[choice].first_instance + index];
  }
  void clear_queue();
  /// The universe of an integer instance over objects a lowering added.
  std::span<const std::int64_t> added_universe(std::uint32_t choice, std::size_t index) const;
  /// Calls f(choice, index, ids, arity) for every live stored non-counter instance (with more
  /// than one value left when `open_only`), in layout order from instance number `from`, until
  /// f returns false.
  template <typename F>
  void for_each_live(F&& f, bool open_only = false, std::size_t from = 0) const;
  /// for_each_live over the instances of choice `c` only; false when `f` stopped the walk.
  template <typename F>
  bool for_each_live_of(std::uint32_t c, F&& f, bool open_only, std::size_t from) const;
  std::size_t count_live(bool open_only) const;

  struct QueuedInstance {
    std::uint32_t choice;
    std::size_t index;
    std::array<ObjectId, kMaxArity> ids;
    ValueSet old;
  };

  std::vector<QueuedInstance> queue_;
  std::uint64_t queue_epoch_ = 0;  // identifies this queue in the thread's dedup stamps
  std::vector<PendingTrigger> pending_triggers_;
  struct DeferredCheck {
    std::uint32_t quotient;
    ObjectId x;
    bool operator==(const DeferredCheck&) const = default;
  };
  /// A handful at a time (the elements whose equivalences changed), hence a linear search.
  std::vector<DeferredCheck> deferred_checks_;
  std::shared_ptr<const ExtraUniverses> extra_universes_;
  /// Sorted by (choice, index, field); shared by copies of a candidate, and copied before a
  /// write. Rare: sizes, counts and limits fit in 32 bits.
  std::shared_ptr<const std::vector<WideField>> wide_fields_;
  std::optional<Conflict> conflict_;
  OpenHint open_hint_;
};

}  // namespace sculpt::spacegen
