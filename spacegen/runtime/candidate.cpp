#include "spacegen/runtime/candidate.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>
#include <utility>

#include "spacegen/runtime/triangle.h"
#include "support/check.h"

namespace sculpt::spacegen {

namespace {

/// Instances a propagation queues at once: most need fewer.
constexpr std::size_t kQueueReserve = 128;

/// Whether stored enum or integer instance `i` of a block has more than one value left.
bool more_than_one(const unsigned char* block, const ChoiceLayout& l, std::size_t i) {
  if (l.bits != 0) {
    const ValueSet domain = l.enum_domain(block, i);
    return (domain & (domain - 1)) != 0;
  }
  bool one = false;
  for (const unsigned char* slot = block + l.offset + i * l.stride;
       slot != block + l.offset + (i + 1) * l.stride; ++slot) {
    if (*slot == 0) continue;
    if (one || (*slot & (*slot - 1)) != 0) return true;
    one = true;
  }
  return false;
}

auto wide_field_key(std::uint32_t choice, std::size_t index, unsigned field) {
  return std::tuple(choice, static_cast<std::uint32_t>(index), field);
}

/// Where the field with `key` is (true) or would be inserted (false) in a table sorted by key.
template <typename Field, typename Key>
std::pair<std::ptrdiff_t, bool> find_wide_field(const std::vector<Field>& fields, const Key& key) {
  const auto at = std::lower_bound(
      fields.begin(), fields.end(), key,
      [](const Field& w, const Key& k) { return wide_field_key(w.choice, w.index, w.field) < k; });
  return {at - fields.begin(),
          at != fields.end() && wide_field_key(at->choice, at->index, at->field) == key};
}

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

}  // namespace

std::string Conflict::to_string() const {
  std::ostringstream out;
  out << choice << "(";
  for (std::size_t i = 0; i < objects.size(); ++i) out << (i ? ", " : "") << objects[i];
  if (!unresolved.empty()) {
    out << ") cannot be replayed: " << unresolved;
    return out.str();
  }
  out << ") became empty in " << origin;
  if (clause != 0) out << " (clause " << clause << ")";
  if (!location.empty()) out << " at " << location;
  return out.str();
}

std::string to_json(const Action& action) {
  nlohmann::ordered_json j;
  j["choice"] = action.choice;
  j["objects"] = action.objects;
  if (action.values.size() == 1) {
    j["value"] = action.values[0];
  } else {
    j["values"] = action.values;
  }
  return j.dump();
}

std::optional<Action> action_from_json(std::string_view text, std::string* error) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("choice") || !j["choice"].is_string() ||
      !j.contains("objects") || !j["objects"].is_array()) {
    *error = "an action needs \"choice\" (a name) and \"objects\" (an array of ids)";
    return std::nullopt;
  }
  Action action;
  action.choice = j["choice"].get<std::string>();
  for (const auto& o : j["objects"]) {
    if (!o.is_number_unsigned() || !std::in_range<ObjectId>(o.get<std::uint64_t>())) {
      *error = "object ids must be non-negative 32-bit integers";
      return std::nullopt;
    }
    action.objects.push_back(o.get<ObjectId>());
  }
  if (j.contains("value") && j["value"].is_string()) {
    action.values.push_back(j["value"].get<std::string>());
  } else if (j.contains("values") && j["values"].is_array()) {
    for (const auto& v : j["values"]) {
      if (!v.is_string()) {
        *error = "values must be names";
        return std::nullopt;
      }
      action.values.push_back(v.get<std::string>());
    }
  } else {
    *error = "an action needs \"value\" (a name) or \"values\" (an array of names)";
    return std::nullopt;
  }
  return action;
}

CandidateBase::CandidateBase(std::shared_ptr<const Layout> layout)
    : layout_(std::move(layout)), block_(layout_->initial) {}

std::span<const std::int64_t> CandidateBase::added_universe(std::uint32_t choice,
                                                            std::size_t index) const {
  SCULPT_CHECK(extra_universes_ != nullptr && extra_universes_->has(choice, index))
      << "integer instance without a universe";
  const auto [begin, end] = extra_universes_->ranges[choice][index];
  return {extra_universes_->values.data() + begin, extra_universes_->values.data() + end};
}

bool CandidateBase::has_universe(std::uint32_t choice, std::size_t index) const {
  return layout_->choices[choice].universe_known[index] ||
         (extra_universes_ && extra_universes_->has(choice, index));
}

void CandidateBase::add_universe(std::uint32_t choice, std::size_t index,
                                 std::vector<std::int64_t> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  const ChoiceLayout& l = layout_->choices[choice];
  SCULPT_CHECK(values.size() <= l.stride * 8)
      << "the universe of a new instance of " << table().choices[choice].name << " has "
      << values.size() << " values, more than the " << l.stride * 8
      << " the layout reserved from the instances present at creation";
  auto extra = extra_universes_ ? std::make_shared<ExtraUniverses>(*extra_universes_)
                                : std::make_shared<ExtraUniverses>();
  if (extra->ranges.size() <= choice) extra->ranges.resize(choice + 1);
  auto& ranges = extra->ranges[choice];
  if (ranges.size() <= index) ranges.resize(l.count, ExtraUniverses::kNoRange);
  const auto begin = static_cast<std::uint32_t>(extra->values.size());
  extra->values.insert(extra->values.end(), values.begin(), values.end());
  ranges[index] = {begin, static_cast<std::uint32_t>(extra->values.size())};
  extra_universes_ = std::move(extra);
  // Trim the full domain the layout gave the dormant instance to the universe's size: keep
  // the low n bits.
  const std::size_t n = values.size();
  unsigned char* slot = bytes() + l.offset + index * l.stride;
  for (std::size_t b = n / 8; b < l.stride; ++b) {
    slot[b] = static_cast<unsigned char>(b == n / 8 ? slot[b] & ((1u << n % 8) - 1) : 0);
  }
}

void CandidateBase::make_room_for_members() {
  open_hint_.set(0);  // the new objects' instances may come first
  const Layout& from = *layout_;
  std::vector<std::uint32_t> stored = from.set_stored;
  bool grows = false;
  for (std::size_t s = 0; s < stored.size(); ++s) {
    if (!table().sets[s].plain()) continue;
    stored[s] = from.stored_slots(s, members(s), stored[s]);
    grows = grows || stored[s] != from.set_stored[s];
  }
  if (!grows) return;
  // The domains keep their values, but the rows cached for them index the old block.
  triangle_rows_ = RowVersion{};
  std::shared_ptr<const Layout> to = from.grown(stored);
  std::vector<std::uint64_t> block = to->initial;
  auto* raw = reinterpret_cast<unsigned char*>(block.data());
  std::memcpy(raw, bytes(), from.sets_bytes);
  for (std::size_t c = 0; c < from.choices.size(); ++c) {
    const ChoiceLayout& a = from.choices[c];
    const ChoiceLayout& b = to->choices[c];
    // The last argument varies fastest: the instances over its old slots stay contiguous (all
    // of them when the index does not depend on the caps).
    const std::size_t run = a.count == 0 || a.stride != b.stride ? 1
                            : a.triangular || a.arity <= 1       ? a.count
                                                                 : a.caps[a.arity - 1];
    for (std::size_t i = 0; i < a.count; i += run) {
      const std::size_t j = from.index_in(*to, c, i);
      if (a.bits != 0) {
        copy_packed(bytes() + a.offset, i, raw + b.offset, j, run, a.bits);
      } else {
        std::memcpy(raw + b.offset + j * b.stride, bytes() + a.offset + i * a.stride,
                    run * a.stride);
      }
    }
  }
  if (!from.trigger_offset.empty()) {
    std::memcpy(raw + to->trigger_offset[0], bytes() + from.trigger_offset[0],
                from.words * 8 - from.trigger_offset[0]);
  }
  if (extra_universes_) {
    auto extra = std::make_shared<ExtraUniverses>();
    extra->values = extra_universes_->values;
    extra->ranges.resize(extra_universes_->ranges.size());
    for (std::uint32_t c = 0; c < extra->ranges.size(); ++c) {
      const auto& old_ranges = extra_universes_->ranges[c];
      if (old_ranges.empty()) continue;
      extra->ranges[c].assign(to->choices[c].count, ExtraUniverses::kNoRange);
      for (std::size_t i = 0; i < old_ranges.size(); ++i) {
        if (old_ranges[i] != ExtraUniverses::kNoRange) {
          extra->ranges[c][from.index_in(*to, c, i)] = old_ranges[i];
        }
      }
    }
    extra_universes_ = std::move(extra);
  }
  if (wide_fields_) {
    auto wide = std::make_shared<std::vector<WideField>>(*wide_fields_);
    for (WideField& w : *wide) {
      w.index = static_cast<std::uint32_t>(from.index_in(*to, w.choice, w.index));
    }
    wide_fields_ = std::move(wide);
  }
  block_ = std::move(block);
  layout_ = std::move(to);
}

std::int64_t CandidateBase::wide_counter_field(std::uint32_t choice, std::size_t index,
                                               unsigned field) const {
  SCULPT_CHECK(wide_fields_) << "a wide counter field without its value";
  const auto [at, found] = find_wide_field(*wide_fields_, wide_field_key(choice, index, field));
  SCULPT_CHECK(found) << "a wide counter field without its value";
  return (*wide_fields_)[at].value;
}

void CandidateBase::set_wide_counter_field(std::uint32_t choice, std::size_t index, unsigned field,
                                           const std::optional<std::int64_t>& value) {
  const std::vector<WideField> none;
  const std::vector<WideField>& old = wide_fields_ ? *wide_fields_ : none;
  const auto [at, found] = find_wide_field(old, wide_field_key(choice, index, field));
  if (found && value == old[at].value) return;  // copy only on a real change
  if (!found && !value) return;
  auto fields = std::make_shared<std::vector<WideField>>(old);
  if (!value) {
    fields->erase(fields->begin() + at);
  } else if (found) {
    (*fields)[at].value = *value;
  } else {
    fields->insert(fields->begin() + at,
                   {choice, static_cast<std::uint32_t>(index), field, *value});
  }
  if (fields->empty()) {
    wide_fields_.reset();
  } else {
    wide_fields_ = std::move(fields);
  }
}

void CandidateBase::start_queue() {
  // The layout only grows between rounds of propagation, when the queue is empty.
  candidate_detail::QueueStamps& stamps = candidate_detail::t_queue_stamps;
  if (stamps.size < layout_->instances) {
    // The stamps' storage, freed with the thread.
    thread_local std::vector<std::uint64_t> storage;
    storage.resize(layout_->instances, 0);
    stamps.stamp = storage.data();
    stamps.size = storage.size();
  }
  queue_epoch_ = stamps.next_epoch++;
  // One allocation per propagation rather than one per doubling.
  if (queue_.capacity() == 0) queue_.reserve(kQueueReserve);
}

void CandidateBase::clear_queue() {
  for (const QueuedInstance& q : queue_) {
    queue_stamp(q.choice, q.index) = 0;
  }
  queue_ = {};
  pending_triggers_.clear();
  deferred_checks_ = {};
}

Status CandidateBase::fail(Origin origin, std::uint32_t choice, const ObjectId* ids) {
  if (conflict_) return Status::Conflict;
  Conflict c;
  const SpaceTable& t = table();
  c.origin = t.origins[origin.id].name;
  c.location = t.origins[origin.id].location;
  c.clause = origin.clause;
  if (choice < t.choices.size()) {
    c.choice = t.choices[choice].name;
    c.objects.assign(ids, ids + t.choices[choice].arg_sets.size());
  }
  conflict_ = std::move(c);
  return Status::Conflict;
}

bool CandidateBase::fire_trigger(std::uint32_t trigger, const ObjectId* ids, std::size_t arity,
                                 const std::uint32_t* sets) {
  std::size_t bit = 0;
  for (std::size_t i = 0; i < arity; ++i) {
    bit = bit * layout_->set_slots[sets[i]] + layout_->slot(sets[i], ids[i]);
  }
  unsigned char& byte = bytes()[layout_->trigger_offset[trigger] + bit / 8];
  if ((byte >> (bit % 8)) & 1) return false;
  byte |= static_cast<unsigned char>(1u << (bit % 8));
  PendingTrigger p{trigger, {}};
  std::copy(ids, ids + arity, p.ids.begin());
  pending_triggers_.push_back(p);
  return true;
}

Status CandidateBase::propagate() {
  if (conflict_) return Status::Conflict;
  while (true) {
    // FIFO over a vector: process in insertion order, compact when drained.
    for (std::size_t head = 0; head < queue_.size(); ++head) {
      const QueuedInstance q = queue_[head];
      queue_stamp(q.choice, q.index) = 0;
      ++candidate_detail::t_wakeups;
      if (on_change(q.choice, q.ids.data(), q.old) == Status::Conflict) {
        queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(head + 1));
        clear_queue();
        return Status::Conflict;
      }
    }
    queue_.clear();
    if (!deferred_checks_.empty()) {
      // What the deferred checks restrict starts the worklist again.
      std::vector<DeferredCheck> checks;
      checks.swap(deferred_checks_);
      for (const DeferredCheck& c : checks) {
        if (run_quotient_check(c.quotient, c.x) == Status::Conflict) {
          clear_queue();
          return Status::Conflict;
        }
      }
      continue;
    }
    if (pending_triggers_.empty()) {
      // A candidate at rest keeps no queue.
      queue_ = {};
      return Status::Ok;
    }
    // Lowerings run once the domains are stable; they only add objects, so their order
    // does not matter (triggers must commute).
    std::vector<PendingTrigger> fired;
    fired.swap(pending_triggers_);
    for (const PendingTrigger& p : fired) run_trigger(p.trigger, p.ids.data());
    if (instantiate_new_objects() == Status::Conflict) {
      clear_queue();
      return Status::Conflict;
    }
  }
}

bool CandidateBase::is_live(const InstanceRef& instance) const {
  const ChoiceTable& c = table().choices[instance.choice];
  if (instance.objects.size() != c.arg_sets.size()) return false;
  for (std::size_t i = 0; i < c.arg_sets.size(); ++i) {
    if (!is_member(c.arg_sets[i], instance.objects[i])) return false;
    for (std::size_t j = 0; j < i; ++j) {
      if (instance.objects[i] == instance.objects[j] && c.arg_sets[i] == c.arg_sets[j]) {
        return false;
      }
    }
  }
  return true;
}

template <typename F>
bool CandidateBase::for_each_live_of(std::uint32_t c, F&& f, bool open_only,
                                     std::size_t from) const {
  const ChoiceTable& ct = table().choices[c];
  const ChoiceLayout& l = layout_->choices[c];
  if (ct.kind == ChoiceKind::Counter || l.first_instance + l.count <= from) return true;
  std::array<ObjectId, kMaxArity> ids{};
  for (std::size_t i = from > l.first_instance ? from - l.first_instance : 0; i < l.count; ++i) {
    // Most instances of a search's candidates are fixed: their size is cheaper to read
    // than their objects.
    if (open_only && !more_than_one(bytes(), l, i)) continue;
    layout_->decode(c, i, ids.data());
    bool live = true;
    for (std::uint32_t a = 0; a < l.arity && live; ++a) {
      live = is_member(ct.arg_sets[a], ids[a]);
      for (std::uint32_t b = 0; b < a && live; ++b) {
        live = ids[a] != ids[b] || ct.arg_sets[a] != ct.arg_sets[b];
      }
    }
    if (live && !f(c, i, ids.data(), l.arity)) return false;
  }
  return true;
}

template <typename F>
void CandidateBase::for_each_live(F&& f, bool open_only, std::size_t from) const {
  for (std::uint32_t c = 0; c < table().choices.size(); ++c) {
    if (!for_each_live_of(c, f, open_only, from)) return;
  }
}

std::vector<InstanceRef> CandidateBase::live_instances() const {
  std::vector<InstanceRef> out;
  for_each_live([&](std::uint32_t c, std::size_t, const ObjectId* ids, std::uint32_t arity) {
    out.push_back({c, std::vector<ObjectId>(ids, ids + arity)});
    return true;
  });
  return out;
}

std::optional<InstanceRef> CandidateBase::first_open_instance() const {
  std::optional<InstanceRef> out;
  std::size_t next = layout_->instances;
  for_each_live(
      [&](std::uint32_t c, std::size_t i, const ObjectId* ids, std::uint32_t arity) {
        out = InstanceRef{c, std::vector<ObjectId>(ids, ids + arity)};
        next = layout_->choices[c].first_instance + i;
        return false;
      },
      /*open_only=*/true, open_hint_.get());
  open_hint_.set(next);
  return out;
}

std::optional<InstanceRef> CandidateBase::first_open_instance(
    std::span<const std::uint32_t> choices) const {
  std::optional<InstanceRef> out;
  const auto take = [&](std::uint32_t c, std::size_t, const ObjectId* ids, std::uint32_t arity) {
    out = InstanceRef{c, std::vector<ObjectId>(ids, ids + arity)};
    return false;
  };
  for (std::uint32_t c : choices) {
    SCULPT_CHECK(c < table().choices.size()) << "choice " << c << " is not in the space";
    if (!for_each_live_of(c, take, /*open_only=*/true, 0)) break;
  }
  return out;
}

std::vector<InstanceRef> CandidateBase::open_instances() const {
  std::vector<InstanceRef> out;
  for_each_live(
      [&](std::uint32_t c, std::size_t, const ObjectId* ids, std::uint32_t arity) {
        out.push_back({c, std::vector<ObjectId>(ids, ids + arity)});
        return true;
      },
      /*open_only=*/true);
  return out;
}

std::size_t CandidateBase::count_live(bool open_only) const {
  std::size_t count = 0;
  for_each_live(
      [&](std::uint32_t, std::size_t, const ObjectId*, std::uint32_t) {
        ++count;
        return true;
      },
      open_only);
  return count;
}

std::vector<std::uint32_t> CandidateBase::domain(const InstanceRef& instance) const {
  const ChoiceTable& c = table().choices[instance.choice];
  const ChoiceLayout& l = layout_->choices[instance.choice];
  std::vector<ObjectId> ids = instance.objects;
  bool flipped = l.triangular && ids[0] > ids[1];
  if (flipped) std::swap(ids[0], ids[1]);
  std::size_t index = layout_->index(instance.choice, ids.data());
  std::vector<std::uint32_t> out;
  if (c.kind == ChoiceKind::Enum) {
    const ValueSet bits = l.enum_domain(bytes(), index);
    for (std::uint32_t v = 0; v < c.values.size(); ++v) {
      if ((bits >> v) & 1) {
        bool antisym = flipped && c.symmetry == Symmetry::Antisymmetric;
        out.push_back(antisym ? c.involution[v] : v);
      }
    }
    std::sort(out.begin(), out.end());
  } else if (c.kind == ChoiceKind::Integer) {
    auto values = universe(instance.choice, index);
    const unsigned char* words = bytes() + l.offset + index * l.stride;
    for (std::uint32_t v = 0; v < values.size(); ++v) {
      if ((words[v / 8] >> (v % 8)) & 1) out.push_back(v);
    }
  }
  return out;
}

std::string CandidateBase::value_name(const InstanceRef& instance, std::uint32_t value) const {
  const ChoiceTable& c = table().choices[instance.choice];
  if (c.kind == ChoiceKind::Enum) return c.values[value];
  std::size_t index = layout_->index(instance.choice, instance.objects.data());
  return std::to_string(universe(instance.choice, index)[value]);
}

Interval CandidateBase::counter_value(const InstanceRef& instance) const {
  std::size_t index = layout_->index(instance.choice, instance.objects.data());
  return counter_state(instance.choice, index).value();
}

Status CandidateBase::restrict(const InstanceRef& instance,
                               const std::vector<std::uint32_t>& values) {
  if (conflict_) return Status::Conflict;
  const ChoiceTable& c = table().choices[instance.choice];
  const ChoiceLayout& l = layout_->choices[instance.choice];
  SCULPT_CHECK(c.kind != ChoiceKind::Counter) << "counters are not decisions";
  SCULPT_CHECK(is_live(instance)) << "restricting an instance that is not live";
  std::vector<ObjectId> ids = instance.objects;
  std::vector<std::uint64_t> mask(std::max<std::size_t>(1, l.stride / 8 + 1), 0);
  bool flipped = l.triangular && ids[0] > ids[1];
  for (std::uint32_t v : values) {
    std::uint32_t stored = flipped && c.symmetry == Symmetry::Antisymmetric ? c.involution[v] : v;
    mask[stored / 64] |= std::uint64_t{1} << (stored % 64);
  }
  if (flipped) std::swap(ids[0], ids[1]);
  if (restrict_stored(instance.choice, ids.data(), mask.data()) == Status::Conflict) {
    clear_queue();
    return Status::Conflict;
  }
  return propagate();
}

std::optional<std::pair<InstanceRef, std::vector<std::uint32_t>>> CandidateBase::resolve(
    const Action& action, std::string* error) const {
  const SpaceTable& t = table();
  for (std::uint32_t c = 0; c < t.choices.size(); ++c) {
    if (t.choices[c].name != action.choice) continue;
    if (t.choices[c].kind == ChoiceKind::Counter) break;
    InstanceRef ref{c, action.objects};
    if (!is_live(ref)) {
      *error = "no live instance of " + action.choice + " over these objects";
      return std::nullopt;
    }
    std::vector<std::uint32_t> values;
    for (const std::string& name : action.values) {
      bool found = false;
      std::uint32_t n = t.choices[c].kind == ChoiceKind::Enum
                            ? static_cast<std::uint32_t>(t.choices[c].values.size())
                            : static_cast<std::uint32_t>(
                                  universe(c, layout_->index(c, action.objects.data())).size());
      for (std::uint32_t v = 0; v < n && !found; ++v) {
        if (value_name(ref, v) == name) {
          values.push_back(v);
          found = true;
        }
      }
      if (!found) {
        *error = "unknown value " + name + " of " + action.choice;
        return std::nullopt;
      }
    }
    return std::make_pair(std::move(ref), std::move(values));
  }
  *error = "unknown choice " + action.choice;
  return std::nullopt;
}

Action CandidateBase::make_action(const InstanceRef& instance,
                                  const std::vector<std::uint32_t>& values) const {
  Action a{table().choices[instance.choice].name, instance.objects, {}};
  for (std::uint32_t v : values) a.values.push_back(value_name(instance, v));
  return a;
}

Status CandidateBase::apply(const std::vector<Action>& actions) {
  for (const Action& action : actions) {
    std::string error;
    auto resolved = resolve(action, &error);
    if (!resolved) {
      if (!conflict_) conflict_ = Conflict{"replay", "", 0, action.choice, action.objects, error};
      return Status::Conflict;
    }
    if (restrict(resolved->first, resolved->second) == Status::Conflict) return Status::Conflict;
  }
  return Status::Ok;
}

std::uint64_t CandidateBase::hash() const {
  std::uint64_t h = table().model_hash;
  for (std::uint64_t w : block_) h = mix(h, w);
  if (wide_fields_) {
    for (const WideField& w : *wide_fields_) h = mix(h, static_cast<std::uint64_t>(w.value));
  }
  return h;
}

std::string CandidateBase::to_string() const {
  std::ostringstream out;
  for (const InstanceRef& ref : live_instances()) {
    out << table().choices[ref.choice].name << "(";
    for (std::size_t i = 0; i < ref.objects.size(); ++i) out << (i ? ", " : "") << ref.objects[i];
    out << ") = {";
    auto values = domain(ref);
    for (std::size_t i = 0; i < values.size(); ++i) {
      out << (i ? ", " : "") << value_name(ref, values[i]);
    }
    out << "}\n";
  }
  return out.str();
}

}  // namespace sculpt::spacegen
