#include "spacegen/runtime/layout.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "support/check.h"

namespace sculpt::spacegen {

namespace {

std::size_t align_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

/// The slot of a bitset of `bits` bits (enum values, or an integer universe): 1, 2 or 4 bytes
/// when they fit, else whole 64-bit words.
std::size_t bitset_bytes(std::size_t bits) {
  if (bits <= 8) return 1;
  if (bits <= 16) return 2;
  if (bits <= 32) return 4;
  return (bits + 63) / 64 * 8;
}

}  // namespace

std::size_t Layout::index(std::size_t choice, const ObjectId* ids) const {
  const ChoiceLayout& c = choices[choice];
  if (c.triangular) {
    std::size_t a = slot(c.sets[0], ids[0]);
    std::size_t b = slot(c.sets[1], ids[1]);
    return b * (b - 1) / 2 + a;
  }
  std::size_t idx = 0;
  for (std::uint32_t i = 0; i < c.arity; ++i) idx = idx * c.caps[i] + slot(c.sets[i], ids[i]);
  return idx;
}

void Layout::decode(std::size_t choice, std::size_t index, ObjectId* ids) const {
  const ChoiceLayout& c = choices[choice];
  auto id_of = [&](std::uint32_t i, std::size_t slot) {
    const std::vector<ObjectId>& of_slot = set_ids[c.sets[i]];
    return of_slot.empty() ? static_cast<ObjectId>(slot) : of_slot[slot];
  };
  if (c.triangular) {
    // Largest b with b(b-1)/2 <= index.
    auto b =
        static_cast<std::size_t>((1.0 + std::sqrt(1.0 + 8.0 * static_cast<double>(index))) / 2);
    while (b * (b - 1) / 2 > index) --b;
    while ((b + 1) * b / 2 <= index) ++b;
    ids[1] = id_of(1, b);
    ids[0] = id_of(0, index - b * (b - 1) / 2);
    return;
  }
  for (std::uint32_t i = c.arity; i-- > 0;) {
    ids[i] = id_of(i, index % c.caps[i]);
    index /= c.caps[i];
  }
}

LayoutBuilder::LayoutBuilder(const SpaceTable& table) : table_(table) {
  layout_.set_capacity.assign(table.sets.size(), 0);
  layout_.set_slots.assign(table.sets.size(), 0);
  layout_.set_rank.resize(table.sets.size());
  layout_.set_ids.resize(table.sets.size());
  members_.resize(table.sets.size());
  member_bits_.resize(table.sets.size());
  layout_.choices.resize(table.choices.size());
  universes_.resize(table.choices.size());
}

void LayoutBuilder::set_capacity(std::size_t set, std::uint32_t capacity) {
  layout_.set_capacity[set] = capacity;
  layout_.set_slots[set] = capacity;
  member_bits_[set].assign(capacity, false);
}

void LayoutBuilder::set_all_ids(std::size_t set, std::vector<ObjectId> ids,
                                std::optional<std::size_t> superset) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<std::uint32_t>& rank = layout_.set_rank[set];
  rank.assign(layout_.set_capacity[set], kNoSlot);
  for (std::size_t slot = 0; slot < ids.size(); ++slot) {
    SCULPT_CHECK(ids[slot] < layout_.set_capacity[set])
        << "all_ids of set " << table_.sets[set].name << " lists id " << ids[slot]
        << ", not below its capacity " << layout_.set_capacity[set];
    SCULPT_CHECK(!superset || layout_.potential(*superset, ids[slot]))
        << "all_ids of set " << table_.sets[set].name << " lists id " << ids[slot]
        << ", which its superset " << table_.sets[*superset].name << " may not hold";
    rank[ids[slot]] = static_cast<std::uint32_t>(slot);
  }
  layout_.set_slots[set] = static_cast<std::uint32_t>(ids.size());
  layout_.set_ids[set] = std::move(ids);
}

void LayoutBuilder::share_ids(std::size_t set, std::size_t superset) {
  layout_.set_rank[set] = layout_.set_rank[superset];
  layout_.set_ids[set] = layout_.set_ids[superset];
  layout_.set_slots[set] = layout_.set_slots[superset];
}

void LayoutBuilder::add_member(std::size_t set, ObjectId id) {
  SCULPT_CHECK(id < layout_.set_capacity[set])
      << "object id " << id << " of set " << table_.sets[set].name << " is not below its capacity "
      << layout_.set_capacity[set];
  SCULPT_CHECK(layout_.potential(set, id))
      << "object " << id << " of set " << table_.sets[set].name << " is not in its all_ids";
  if (member_bits_[set][id]) return;
  member_bits_[set][id] = true;
  members_[set].push_back(id);
}

void LayoutBuilder::place_choices() {
  layout_.set_stored.assign(table_.sets.size(), 0);
  for (std::size_t s = 0; s < table_.sets.size(); ++s) {
    layout_.set_stored[s] = layout_.stored_slots(s, members_[s]);
  }
  for (std::size_t c = 0; c < table_.choices.size(); ++c) {
    const ChoiceTable& t = table_.choices[c];
    ChoiceLayout& l = layout_.choices[c];
    l.kind = t.kind;
    l.arity = static_cast<std::uint32_t>(t.arg_sets.size());
    SCULPT_CHECK(l.arity <= kMaxArity) << "choice " << t.name << " has too many arguments";
    l.triangular = t.symmetry != Symmetry::None;
    for (std::uint32_t i = 0; i < l.arity; ++i) l.sets[i] = t.arg_sets[i];
    l.num_values = t.values.size();
    if (t.kind == ChoiceKind::Counter) {
      l.counter_fields =
          static_cast<std::uint8_t>((t.half ? 0 : kCounterHi) | (t.lower_bound ? kCounterMin : 0) |
                                    (t.upper_bound ? kCounterMax : 0));
    }
  }
  layout_.count_instances();
  for (std::size_t c = 0; c < table_.choices.size(); ++c) {
    if (table_.choices[c].kind == ChoiceKind::Integer) {
      universes_[c].resize(layout_.choices[c].count);
    }
  }
}

void LayoutBuilder::set_universe(std::size_t choice, std::size_t index,
                                 std::vector<std::int64_t> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  universes_[choice][index] = std::move(values);
  if (layout_.choices[choice].universe_known.empty()) {
    layout_.choices[choice].universe_known.assign(layout_.choices[choice].count, false);
  }
  layout_.choices[choice].universe_known[index] = true;
}

void LayoutBuilder::add_trigger(std::size_t trigger, const std::vector<std::uint32_t>& sets) {
  std::size_t bits = 1;
  for (std::uint32_t s : sets) bits *= layout_.set_slots[s];
  if (layout_.trigger_bits.size() <= trigger) layout_.trigger_bits.resize(trigger + 1, 0);
  layout_.trigger_bits[trigger] = bits;
}

Layout LayoutBuilder::finish() {
  layout_.trigger_bits.resize(table_.num_triggers, 0);
  layout_.set_offset.assign(table_.sets.size(), 0);
  for (std::size_t s = 0; s < table_.sets.size(); ++s) {
    if (!table_.sets[s].plain()) continue;
    layout_.set_offset[s] = layout_.sets_bytes;
    layout_.sets_bytes += align_up((layout_.set_capacity[s] + 7) / 8, 8);
  }
  for (std::size_t c = 0; c < table_.choices.size(); ++c) {
    ChoiceLayout& l = layout_.choices[c];
    switch (l.kind) {
      case ChoiceKind::Enum:
        if (packs_domains(l.num_values)) {
          l.bits = static_cast<std::uint8_t>(l.num_values);
        } else {
          l.stride = bitset_bytes(l.num_values);
        }
        break;
      case ChoiceKind::Counter:
        l.stride = counter_bytes(l.counter_fields);
        break;
      case ChoiceKind::Integer: {
        // Integer slots keep this width as the layout grows: new instances must fit it.
        std::size_t widest = 1;
        l.universe_start.assign(l.count + 1, 0);
        if (l.universe_known.empty()) l.universe_known.assign(l.count, false);
        for (std::size_t i = 0; i < l.count; ++i) {
          widest = std::max(widest, universes_[c][i].size());
          l.universe_start[i] = static_cast<std::uint32_t>(l.universe.size());
          l.universe.insert(l.universe.end(), universes_[c][i].begin(), universes_[c][i].end());
        }
        l.universe_start[l.count] = static_cast<std::uint32_t>(l.universe.size());
        l.stride = bitset_bytes(widest);
        break;
      }
    }
  }
  layout_.place();
  auto* raw = reinterpret_cast<unsigned char*>(layout_.initial.data());
  for (std::size_t s = 0; s < table_.sets.size(); ++s) {
    for (ObjectId id : members_[s]) raw[layout_.set_offset[s] + id / 8] |= 1u << (id % 8);
  }
  layout_.family_owner = std::make_shared<LayoutFamily>();
  layout_.family = layout_.family_owner.get();
  auto& tables = layout_.family->filters;
  tables.reserve(filters_.size());
  for (const DeclaredFilter& filter : filters_) {
    FilterTable& table = tables.emplace_back(layout_, filter.sets);
    for (const auto& [ids, value] : filter.values) table.record(layout_, ids.data(), value);
    layout_.static_filters.push_back(table.values());
  }
  return std::move(layout_);
}

FilterTable::FilterTable(const Layout& layout, const std::vector<std::uint32_t>& sets)
    : sets_(sets) {
  SCULPT_CHECK(sets.size() <= 2) << "a static filter of " << sets.size() << " objects";
  std::size_t entries = 1;
  for (std::uint32_t set : sets) entries *= layout.set_slots[set];
  values_ = std::vector<std::atomic<std::uint8_t>>(entries);
  for (std::size_t arg = 0; arg < sets.size(); ++arg) {
    words_[arg] = (layout.set_capacity[sets[arg]] + 63) / 64;
    const std::size_t rows = sets.size() == 2 ? layout.set_slots[sets[1 - arg]] : 1;
    holding_[arg] = std::vector<std::atomic<std::uint64_t>>(rows * words_[arg]);
  }
}

void FilterTable::record(const Layout& layout, const ObjectId* ids, bool value) {
  std::array<std::uint32_t, 2> slots{};
  std::size_t entry = 0;
  for (std::size_t arg = 0; arg < sets_.size(); ++arg) {
    slots[arg] = layout.slot(sets_[arg], ids[arg]);
    entry = entry * layout.set_slots[sets_[arg]] + slots[arg];
  }
  values_[entry].store(value ? 2 : 1, std::memory_order_relaxed);
  if (!value) return;
  for (std::size_t arg = 0; arg < sets_.size(); ++arg) {
    const std::size_t row = sets_.size() == 2 ? slots[1 - arg] : 0;
    holding_[arg][row * words_[arg] + ids[arg] / 64].fetch_or(std::uint64_t{1} << (ids[arg] % 64),
                                                              std::memory_order_relaxed);
  }
}

std::span<const std::atomic<std::uint64_t>> FilterTable::holding(const Layout& layout,
                                                                 unsigned free,
                                                                 ObjectId other) const {
  const std::size_t row = sets_.size() == 2 ? layout.slot(sets_[1 - free], other) : 0;
  return {holding_[free].data() + row * words_[free], words_[free]};
}

void Layout::count_instances() {
  instances = 0;
  for (ChoiceLayout& l : choices) {
    l.count = 1;
    for (std::uint32_t i = 0; i < l.arity; ++i) {
      l.caps[i] = set_stored[l.sets[i]];
      l.count *= l.caps[i];
    }
    if (l.triangular) l.count = std::size_t{l.caps[0]} * (l.caps[0] - (l.caps[0] > 0)) / 2;
    l.first_instance = instances;
    instances += l.count;
  }
}

void Layout::place() {
  std::size_t bytes = sets_bytes;
  for (ChoiceLayout& l : choices) {
    if (l.bits != 0) {
      l.offset = bytes;
      bytes += (l.count * l.bits + 7) / 8;
      continue;
    }
    bytes = align_up(bytes, std::min<std::size_t>(l.stride, 8));
    l.offset = bytes;
    bytes += l.stride * l.count;
  }
  // Reads of packed domains reach up to a word past their first byte.
  bytes = align_up(bytes, 8) + 8;
  trigger_offset.assign(trigger_bits.size(), 0);
  for (std::size_t t = 0; t < trigger_bits.size(); ++t) {
    trigger_offset[t] = bytes;
    bytes += align_up((trigger_bits[t] + 7) / 8, 8);
  }
  words = align_up(bytes, 8) / 8;
  initial.assign(words, 0);
  auto* raw = reinterpret_cast<unsigned char*>(initial.data());
  for (const ChoiceLayout& l : choices) {
    for (std::size_t i = 0; i < l.count; ++i) {
      unsigned char* slot = raw + l.offset + i * l.stride;
      switch (l.kind) {
        case ChoiceKind::Enum:
          l.set_enum_domain(raw, i,
                            l.num_values >= 64 ? ~ValueSet{0} : (ValueSet{1} << l.num_values) - 1);
          break;
        case ChoiceKind::Integer: {
          // Unknown universes (objects a lowering adds later) start full; instantiation trims.
          std::size_t n =
              l.universe_known[i] ? l.universe_start[i + 1] - l.universe_start[i] : l.stride * 8;
          for (std::size_t b = 0; b < n; ++b) slot[b / 8] |= 1u << (b % 8);
          break;
        }
        case ChoiceKind::Counter:
          // Zeros and infinities: never a wide value.
          write_counter(slot, l.counter_fields, CounterState{},
                        [](unsigned, const std::optional<std::int64_t>&) {});
          break;
      }
    }
  }
}

std::size_t Layout::index_in(const Layout& grown, std::size_t choice, std::size_t index) const {
  const ChoiceLayout& from = choices[choice];
  // Triangular indices (b(b-1)/2 + a) and single slots do not depend on the caps.
  if (from.triangular || from.arity <= 1) return index;
  const ChoiceLayout& to = grown.choices[choice];
  std::array<std::size_t, kMaxArity> slots{};
  for (std::uint32_t i = from.arity; i-- > 0;) {
    slots[i] = index % from.caps[i];
    index /= from.caps[i];
  }
  std::size_t out = 0;
  for (std::uint32_t i = 0; i < to.arity; ++i) out = out * to.caps[i] + slots[i];
  return out;
}

std::shared_ptr<const Layout> Layout::grown(const std::vector<std::uint32_t>& stored) const {
  std::lock_guard<std::mutex> lock(family->mutex);
  std::unique_ptr<const Layout>& cached = family->grown[stored];
  if (cached) return {family->shared_from_this(), cached.get()};
  auto g = std::make_unique<Layout>(*this);
  g->family_owner.reset();
  g->set_stored = stored;
  g->count_instances();
  for (std::size_t c = 0; c < choices.size(); ++c) {
    const ChoiceLayout& from = choices[c];
    if (from.kind != ChoiceKind::Integer) continue;
    ChoiceLayout& to = g->choices[c];
    std::vector<std::uint32_t> source(to.count, kNoSlot);
    for (std::size_t i = 0; i < from.count; ++i) {
      source[index_in(*g, c, i)] = static_cast<std::uint32_t>(i);
    }
    to.universe.clear();
    to.universe_start.assign(to.count + 1, 0);
    to.universe_known.assign(to.count, false);
    for (std::size_t j = 0; j < to.count; ++j) {
      to.universe_start[j] = static_cast<std::uint32_t>(to.universe.size());
      if (source[j] == kNoSlot || !from.universe_known[source[j]]) continue;
      std::span<const std::int64_t> values = universe(c, source[j]);
      to.universe.insert(to.universe.end(), values.begin(), values.end());
      to.universe_known[j] = true;
    }
    to.universe_start[to.count] = static_cast<std::uint32_t>(to.universe.size());
  }
  g->place();
  std::memcpy(g->initial.data(), initial.data(), sets_bytes);
  cached = std::move(g);
  return {family->shared_from_this(), cached.get()};
}

}  // namespace sculpt::spacegen
