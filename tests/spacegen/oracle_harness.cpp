#include "tests/spacegen/oracle_harness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <unordered_map>

#include "spacedsl/frontend.h"
#include "spacedsl/oracle.h"
#include "support/check.h"

namespace sculpt::spacegen::test {

std::vector<SpaceUnderTest>& registered_spaces() {
  static std::vector<SpaceUnderTest> spaces;
  return spaces;
}

bool register_space(SpaceUnderTest space) {
  registered_spaces().push_back(std::move(space));
  return true;
}

std::vector<std::uint32_t> random_restriction(const std::vector<std::uint32_t>& domain,
                                              std::mt19937& rng) {
  std::vector<std::uint32_t> keep;
  while (keep.empty() || keep.size() == domain.size()) {
    keep.clear();
    for (std::uint32_t v : domain) {
      if (rng() % 2) keep.push_back(v);
    }
  }
  return keep;
}

namespace {

namespace oracle = spacedsl::oracle;
using oracle::Binding;

/// The variables of a piece of host code, as test-backbone objects.
struct Vars {
  const Backbone& fun;
  std::span<const Binding> bindings;
  std::uint32_t id(std::string_view name) const {
    for (const Binding& b : bindings) {
      if (b.name == name) return b.id;
    }
    SCULPT_CHECK(false) << "host code reads $" << name << ", which is not bound";
    return 0;
  }
  const Stmt* stmt(std::string_view name) const { return fun.statement(id(name)); }
};

std::vector<std::int64_t> ids_of(const auto& objects) {
  std::vector<std::int64_t> out;
  for (const auto* o : objects) out.push_back(static_cast<std::int64_t>(o->id));
  return out;
}

/// The host code of tests/spacegen/spaces, evaluated over the test backbone: object
/// attributes and set iterators only (the constraint logic is the oracle's).
const std::unordered_map<std::string, std::function<std::int64_t(const Vars&)>>& scalars() {
  static const std::unordered_map<std::string, std::function<std::int64_t(const Vars&)>> table = {
      {"$a->id < $b->id", [](const Vars& v) { return v.id("a") < v.id("b"); }},
      {"$a->id > $b->id", [](const Vars& v) { return v.id("a") > v.id("b"); }},
      {"$m->size", [](const Vars& v) { return v.fun.mem_block(MemId(v.id("m")))->size; }},
      {"$s->flag", [](const Vars& v) { return v.stmt("s")->flag; }},
      {"!$s->flag", [](const Vars& v) { return !v.stmt("s")->flag; }},
      {"$d->flag", [](const Vars& v) { return v.stmt("d")->flag; }},
      {"$i->flag", [](const Vars& v) { return v.stmt("i")->flag; }},
      {"!$i->lowered", [](const Vars& v) { return !v.stmt("i")->lowered; }},
      {"!$fun.is_lowered($i)", [](const Vars& v) { return !v.stmt("i")->lowered; }},
      {"$i->weight", [](const Vars& v) { return v.stmt("i")->weight; }},
      {"$d->id + 1", [](const Vars& v) { return v.id("d") + 1; }},
      {"!$a->flag || !$b->flag",
       [](const Vars& v) { return !v.stmt("a")->flag || !v.stmt("b")->flag; }},
      {"std::int64_t{1} << 40", [](const Vars&) { return std::int64_t{1} << 40; }},
  };
  return table;
}

const std::unordered_map<std::string, std::function<std::vector<std::int64_t>(const Vars&)>>&
ranges() {
  static const std::unordered_map<std::string,
                                  std::function<std::vector<std::int64_t>(const Vars&)>>
      table = {
          {"$d->sizes", [](const Vars& v) { return v.stmt("d")->sizes; }},
          {"std::vector<int>{1, 2, 4}",
           [](const Vars&) {
             return std::vector<std::int64_t>{1, 2, 4};
           }},
          {"$fun.statements()", [](const Vars& v) { return ids_of(v.fun.statements()); }},
          {"$fun.insts()", [](const Vars& v) { return ids_of(v.fun.insts()); }},
          {"$fun.dims()", [](const Vars& v) { return ids_of(v.fun.dims()); }},
          {"$fun.flag_dims()", [](const Vars& v) { return ids_of(v.fun.flag_dims()); }},
          {"$fun.logical_dims()", [](const Vars& v) { return ids_of(v.fun.logical_dims()); }},
          {"$fun.tile_dims($l)",
           [](const Vars& v) { return ids_of(v.fun.tile_dims(v.fun.logical_dim(v.id("l")))); }},
          {"$fun.mem_blocks()",
           [](const Vars& v) {
             std::vector<std::int64_t> out;
             for (const MemBlock* m : v.fun.mem_blocks()) out.push_back(m->id.value);
             return out;
           }},
      };
  return table;
}

oracle::Host host_of(const Backbone& fun) {
  oracle::Host host;
  host.scalar = [&fun](const std::string& code, std::span<const Binding> b) {
    auto it = scalars().find(code);
    SCULPT_CHECK(it != scalars().end()) << "no test evaluator for host code \"" << code << "\"";
    return it->second(Vars{fun, b});
  };
  host.range = [&fun](const std::string& code, std::span<const Binding> b) {
    auto it = ranges().find(code);
    SCULPT_CHECK(it != ranges().end()) << "no test evaluator for host range \"" << code << "\"";
    return it->second(Vars{fun, b});
  };
  return host;
}

}  // namespace

SampledSpace sampled_test_space(std::function<Status(CandidateBase&)> repost,
                                std::function<const Backbone&(const CandidateBase&)> backbone) {
  SampledSpace s;
  s.repost = std::move(repost);
  s.host = [backbone](const CandidateBase& c) { return host_of(backbone(c)); };
  // Each test lowering adds one instruction and counts itself.
  s.check_lowerings = [backbone](const CandidateBase& c, const Lowerings& holding) {
    std::size_t n = 0;
    for (const auto& tuples : holding) n += tuples.size();
    const auto ran = static_cast<std::size_t>(backbone(c).lowerings);
    return ran == n ? std::string()
                    : std::to_string(ran) + " lowerings ran where " + std::to_string(n) +
                          " trigger conditions hold";
  };
  return s;
}

namespace {

/// Instructions and dimensions interleaved (ids are not slots), with random flags, sizes,
/// weights, logical dimensions and memory blocks; values spread so that the bounds of the test
/// spaces (sizes 3 and over 8, shared memory 100, a volume of 2^40), small ones likelier can be
/// crossed.
Backbone random_backbone(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  static constexpr std::int64_t kSizes[] = {1, 2, 4, 1, 2, 3, 4, 8, 16, std::int64_t{1} << 41};
  static constexpr std::int64_t kMemSizes[] = {1, 4, 40, 70};
  Backbone fun;
  const int logicals = pick(0, 2);
  for (int l = 0; l < logicals; ++l) fun.add_logical();
  const int mems = pick(0, 3);
  for (int m = 0; m < mems; ++m) fun.add_mem(kMemSizes[pick(0, 3)]);
  const int dims = pick(1, 3);
  for (int d = 0; d < dims; ++d) {
    if (pick(0, 2) == 0) fun.add_inst(pick(0, 1) == 1, pick(1, 3));
    std::vector<std::int64_t> sizes;
    for (int n = pick(1, 3); n > 0; --n) sizes.push_back(kSizes[pick(0, 9)]);
    std::uint32_t logical =
        logicals == 0 ? ~0u : static_cast<std::uint32_t>(pick(-1, logicals - 1));
    fun.add_dim(sizes, logical, pick(0, 1) == 1);
  }
  if (pick(0, 3) == 0) fun.add_inst(pick(0, 1) == 1, pick(1, 3));
  return fun;
}

std::vector<ObjectId> key_of(const InstanceRef& ref) {
  std::vector<ObjectId> key{ref.choice};
  key.insert(key.end(), ref.objects.begin(), ref.objects.end());
  return key;
}

/// The values of an instance's domain positions: an enum's value indices, an integer's universe
/// in increasing order.
std::vector<std::int64_t> universe(const spacedsl::Model& model, const oracle::Host& host,
                                   const InstanceRef& ref) {
  const spacedsl::Choice& choice = model.choices[ref.choice];
  std::vector<std::int64_t> values;
  if (choice.kind != spacedsl::ChoiceKind::Integer) {
    for (std::size_t v = 0; v < choice.values.size(); ++v) values.push_back(v);
    return values;
  }
  std::vector<Binding> b;
  for (std::size_t a = 0; a < choice.args.size(); ++a) {
    b.push_back({choice.args[a].name, choice.args[a].set, ref.objects[a]});
  }
  values = host.range(choice.universe, b);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

/// One tiny backbone: its instances, their universes and the oracle's verdict on every full
/// assignment (value positions, one per instance).
class World {
 public:
  World(const spacedsl::Model& model, Backbone fun) : model_(model), fun_(std::move(fun)) {}

  /// Lists the instances of `root` and judges every full assignment; false when the enumeration
  /// exceeds `max` or, in a space with triggers, an assignment meets a trigger's condition (its
  /// lowering would add objects the enumeration lacks).
  bool enumerate(const CandidateBase& root, std::size_t max) {
    host_ = host_of(fun_);
    instances_ = root.live_instances();
    std::size_t count = 1;
    for (std::size_t i = 0; i < instances_.size(); ++i) {
      const InstanceRef& ref = instances_[i];
      index_[key_of(ref)] = i;
      std::vector<std::int64_t> values = universe(model_, host_, ref);
      if (model_.choices[ref.choice].kind == spacedsl::ChoiceKind::Integer) {
        for (std::uint32_t p : root.domain(ref)) {
          EXPECT_EQ(root.value_name(ref, p), std::to_string(values.at(p)));
        }
      }
      count *= values.size();
      if (count > max) return false;
      universes_.push_back(std::move(values));
    }
    return judge_all(count);
  }

  const std::vector<InstanceRef>& instances() const { return instances_; }
  const std::vector<std::vector<std::uint32_t>>& solutions() const { return solutions_; }
  /// The assignments the oracle rejects, those with a single violation (one clause on one
  /// tuple) first: dropping that clause from the generator accepts them.
  const std::vector<std::vector<std::uint32_t>>& rejected() const { return rejected_; }
  std::size_t near_misses() const { return near_misses_; }
  const Backbone& backbone() const { return fun_; }

 private:
  bool judge_all(std::size_t count) {
    std::vector<std::uint32_t> digits(instances_.size(), 0);
    std::vector<std::vector<std::uint32_t>> far;  // rejected with several violations
    oracle::Assignment assignment =
        [&](spacedsl::ChoiceId c,
            std::span<const ObjectId> objects) -> std::optional<std::int64_t> {
      std::vector<ObjectId> key{static_cast<ObjectId>(c)};
      key.insert(key.end(), objects.begin(), objects.end());
      auto it = index_.find(key);
      if (it == index_.end()) return std::nullopt;
      return universes_[it->second][digits[it->second]];
    };
    for (std::size_t n = 0; n < count; ++n) {
      for (std::size_t t = 0; t < model_.triggers.size(); ++t) {
        if (!oracle::holding_triggers(model_, host_, assignment, t).empty()) return false;
      }
      const std::size_t violations = oracle::evaluate(model_, host_, assignment, 2).size();
      (violations == 0 ? solutions_ : violations == 1 ? rejected_ : far).push_back(digits);
      for (std::size_t i = 0; i < digits.size(); ++i) {
        if (++digits[i] < universes_[i].size()) break;
        digits[i] = 0;
      }
    }
    near_misses_ = rejected_.size();
    rejected_.insert(rejected_.end(), far.begin(), far.end());
    return true;
  }

  const spacedsl::Model& model_;
  Backbone fun_;
  oracle::Host host_;
  std::vector<InstanceRef> instances_;
  std::map<std::vector<ObjectId>, std::size_t> index_;
  std::vector<std::vector<std::int64_t>> universes_;
  std::vector<std::vector<std::uint32_t>> solutions_;
  std::vector<std::vector<std::uint32_t>> rejected_;
  std::size_t near_misses_ = 0;
};

struct Restriction {
  std::size_t instance;
  std::vector<std::uint32_t> values;
};

bool consistent(const std::vector<std::uint32_t>& s, const std::vector<Restriction>& rs) {
  return std::all_of(rs.begin(), rs.end(), [&](const Restriction& r) {
    return std::find(r.values.begin(), r.values.end(), s[r.instance]) != r.values.end();
  });
}

std::string describe(const CandidateBase& c, const World& w, const std::vector<std::uint32_t>& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    out += "\n  " + c.table().choices[w.instances()[i].choice].name + "(";
    for (ObjectId o : w.instances()[i].objects) out += std::to_string(o) + " ";
    out += ") = " + c.value_name(w.instances()[i], s[i]);
  }
  return out;
}

/// Posting every constraint again changes nothing after a restriction's propagation.
void check_fixpoint(const SampledSpace& space, const CandidateBase& c, int step) {
  auto reposted = c.clone();
  ASSERT_EQ(space.repost(*reposted), Status::Ok)
      << "posting again found a conflict: " << reposted->conflict()->to_string();
  ASSERT_EQ(reposted->to_string(), c.to_string()) << "not a fixpoint after step " << step;
}

void check_soundness(const SpaceUnderTest& space, const CandidateBase& root, const World& w,
                     std::mt19937& rng, int sequences) {
  std::map<std::vector<ObjectId>, std::size_t> index;
  for (std::size_t i = 0; i < w.instances().size(); ++i) index[key_of(w.instances()[i])] = i;
  for (int sequence = 0; sequence < sequences; ++sequence) {
    auto c = root.clone();
    std::vector<Restriction> applied;
    for (int step = 0; step < 6; ++step) {
      std::vector<InstanceRef> open = c->open_instances();
      if (open.empty()) break;
      const InstanceRef ref = open[rng() % open.size()];
      std::vector<std::uint32_t> keep = random_restriction(c->domain(ref), rng);
      applied.push_back({index.at(key_of(ref)), keep});
      const Status status = c->restrict(ref, keep);
      for (const auto& s : w.solutions()) {
        if (!consistent(s, applied)) continue;
        ASSERT_EQ(status, Status::Ok)
            << "conflict while an oracle solution remains: " << c->conflict()->to_string()
            << describe(*c, w, s);
        for (std::size_t i = 0; i < s.size(); ++i) {
          auto d = c->domain(w.instances()[i]);
          ASSERT_NE(std::find(d.begin(), d.end(), s[i]), d.end())
              << "propagation removed a value of an oracle solution from "
              << c->table().choices[w.instances()[i].choice].name << " after step " << step
              << describe(*c, w, s);
        }
      }
      if (status == Status::Conflict) break;
      check_fixpoint(space.sampled, *c, step);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

/// Applies a full assignment instance by instance; Ok when every restriction propagated.
Status apply_full(CandidateBase& c, const World& w, const std::vector<std::uint32_t>& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (c.restrict(w.instances()[i], {s[i]}) == Status::Conflict) return Status::Conflict;
  }
  return Status::Ok;
}

void check_full_assignments(const CandidateBase& root, const World& w, std::mt19937& rng,
                            std::size_t budget) {
  const auto& yes = w.solutions();
  for (std::size_t i = 0; i < yes.size() && i < budget; ++i) {
    const auto& s = yes.size() <= budget ? yes[i] : yes[rng() % yes.size()];
    auto c = root.clone();
    ASSERT_EQ(apply_full(*c, w, s), Status::Ok)
        << "an oracle solution was rejected: " << c->conflict()->to_string() << describe(*c, w, s);
  }
  const auto& no = w.rejected();
  const std::size_t near = w.near_misses();
  for (std::size_t i = 0; i < no.size() && i < budget; ++i) {
    const auto& s = no.size() <= budget || i < near ? no[i] : no[near + rng() % (no.size() - near)];
    auto c = root.clone();
    ASSERT_EQ(apply_full(*c, w, s), Status::Conflict)
        << "an assignment the oracle rejects was accepted:" << describe(*c, w, s);
  }
}

/// A full assignment reached by the generated propagation: the domain position of each instance
/// by (choice, objects), and their number of positions.
struct Reached {
  std::map<std::vector<ObjectId>, std::uint32_t> positions;
  std::map<std::vector<ObjectId>, std::size_t> sizes;
};

/// The oracle's view of a full assignment over the host's backbone: its violations and, per
/// trigger, the tuples whose lowering must have run.
struct Verdict {
  std::vector<oracle::Violation> violations;
  Lowerings lowerings;
};

Verdict judge(const spacedsl::Model& model, const oracle::Host& host, const Reached& reached) {
  std::map<std::vector<ObjectId>, std::vector<std::int64_t>> universes;
  oracle::Assignment assignment =
      [&](spacedsl::ChoiceId c, std::span<const ObjectId> objects) -> std::optional<std::int64_t> {
    const InstanceRef ref{static_cast<std::uint32_t>(c), {objects.begin(), objects.end()}};
    auto it = reached.positions.find(key_of(ref));
    if (it == reached.positions.end()) return std::nullopt;
    auto [u, added] = universes.try_emplace(key_of(ref));
    if (added) u->second = universe(model, host, ref);
    return u->second.at(it->second);
  };
  Verdict v{oracle::evaluate(model, host, assignment), {}};
  for (std::size_t t = 0; t < model.triggers.size(); ++t) {
    v.lowerings.push_back(oracle::holding_triggers(model, host, assignment, t));
  }
  return v;
}

std::string describe(const CandidateBase& c, const Reached& r) {
  std::string out;
  for (const auto& [key, p] : r.positions) {
    const InstanceRef ref{key[0], {key.begin() + 1, key.end()}};
    out += "\n  " + c.table().choices[ref.choice].name + "(";
    for (ObjectId o : ref.objects) out += std::to_string(o) + " ";
    out += ") = " + (c.is_live(ref) ? c.value_name(ref, p) : "#" + std::to_string(p));
  }
  return out;
}

/// A candidate whose instances are all fixed must be an oracle solution over its own backbone,
/// whose lowerings ran exactly where their trigger's condition holds (as the space's
/// `check_lowerings` tells); `out` gets the assignment.
void check_reached(const SampledSpace& space, const spacedsl::Model& model, const CandidateBase& c,
                   Reached* out) {
  const oracle::Host host = space.host(c);
  Reached r;
  for (const InstanceRef& ref : c.live_instances()) {
    const std::vector<std::uint32_t> d = c.domain(ref);
    ASSERT_EQ(d.size(), 1u) << "an open instance at a full assignment";
    const std::vector<std::int64_t> values = universe(model, host, ref);
    if (model.choices[ref.choice].kind == spacedsl::ChoiceKind::Integer) {
      ASSERT_EQ(c.value_name(ref, d[0]), std::to_string(values.at(d[0])))
          << "the universe of an instance of " << model.choices[ref.choice].name;
    }
    r.positions[key_of(ref)] = d[0];
    r.sizes[key_of(ref)] = values.size();
  }
  const Verdict v = judge(model, host, r);
  ASSERT_TRUE(v.violations.empty())
      << "the generated propagation accepts a full assignment the oracle rejects: "
      << v.violations.front().what << describe(c, r);
  const std::string lowerings = space.check_lowerings(c, v.lowerings);
  ASSERT_TRUE(lowerings.empty()) << lowerings << describe(c, r);
  if (out) *out = std::move(r);
}

/// Restricts random open instances of `root` to one random value each until none is open, a
/// value that propagation refutes replaced by another; nullptr when every value of an instance
/// is refuted.
std::unique_ptr<CandidateBase> descend(const CandidateBase& root, std::mt19937& rng) {
  auto c = root.clone();
  for (std::vector<InstanceRef> open; !(open = c->open_instances()).empty();) {
    const InstanceRef& ref = open[rng() % open.size()];
    std::vector<std::uint32_t> values = c->domain(ref);
    std::shuffle(values.begin(), values.end(), rng);
    std::unique_ptr<CandidateBase> next;
    for (std::uint32_t v : values) {
      next = c->clone();
      if (next->restrict(ref, {v}) == Status::Ok) break;
      next = nullptr;
    }
    if (!next) return nullptr;
    c = std::move(next);
  }
  return c;
}

/// Soundness relative to a solution S the propagation reached: restrictions consistent with S
/// never remove a value of S nor fail, and never bring an instance S does not have (a lowering
/// whose condition S does not meet).
void check_sound_for(const SampledSpace& space, const CandidateBase& root, const Reached& s,
                     std::mt19937& rng, int sequences) {
  for (int sequence = 0; sequence < sequences; ++sequence) {
    auto c = root.clone();
    for (int step = 0; step < 8; ++step) {
      std::vector<InstanceRef> open = c->open_instances();
      if (open.empty()) break;
      const InstanceRef ref = open[rng() % open.size()];
      std::vector<std::uint32_t> keep = random_restriction(c->domain(ref), rng);
      const std::uint32_t value = s.positions.at(key_of(ref));
      if (std::find(keep.begin(), keep.end(), value) == keep.end()) keep.push_back(value);
      ASSERT_EQ(c->restrict(ref, keep), Status::Ok)
          << "conflict on a restriction consistent with a solution: " << c->conflict()->to_string()
          << describe(*c, s);
      for (const InstanceRef& live : c->live_instances()) {
        auto it = s.positions.find(key_of(live));
        ASSERT_NE(it, s.positions.end())
            << "an instance the solution does not have appeared after step " << step
            << describe(*c, s);
        auto d = c->domain(live);
        ASSERT_NE(std::find(d.begin(), d.end(), it->second), d.end())
            << "propagation removed a value of a solution from "
            << c->table().choices[live.choice].name << " after step " << step << describe(*c, s);
      }
      check_fixpoint(space, *c, step);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

enum class Replayed { Full, Conflict, Outside };

/// Restricts every instance of `c` to its value in `s`, those that appear on the way included,
/// until a conflict or an instance `s` does not have. Instances propagation fixed are restricted
/// too: a fixed value other than that of `s` is a conflict.
Replayed replay(CandidateBase& c, const Reached& s) {
  for (bool changed = true; changed;) {
    changed = false;
    for (const InstanceRef& ref : c.live_instances()) {
      auto it = s.positions.find(key_of(ref));
      if (it == s.positions.end()) return Replayed::Outside;
      const std::vector<std::uint32_t> d = c.domain(ref);
      if (d.size() == 1 && d[0] == it->second) continue;
      if (c.restrict(ref, {it->second}) == Status::Conflict) return Replayed::Conflict;
      changed = true;
    }
  }
  return Replayed::Full;
}

/// Perturbations of a solution S over its backbone B: one or two instances changed. When the
/// oracle accepts the perturbed assignment over B and its lowerings are those of S (so that B is
/// its backbone too), the generated propagation must reach it; whatever full assignment it
/// reaches must be an oracle solution.
void check_perturbations(const SampledSpace& space, const spacedsl::Model& model,
                         const CandidateBase& root, const CandidateBase& solution, const Reached& s,
                         std::mt19937& rng, int perturbations) {
  const oracle::Host host = space.host(solution);
  const Verdict original = judge(model, host, s);
  std::vector<std::vector<ObjectId>> keys;
  for (const auto& [key, size] : s.sizes) {
    if (size > 1) keys.push_back(key);
  }
  if (keys.empty()) return;
  for (int p = 0; p < perturbations; ++p) {
    Reached changed = s;
    for (int n = 1 + static_cast<int>(rng() % 2); n > 0; --n) {
      const auto& key = keys[rng() % keys.size()];
      auto& position = changed.positions[key];
      position = static_cast<std::uint32_t>((position + 1 + rng() % (s.sizes.at(key) - 1)) %
                                            s.sizes.at(key));
    }
    const Verdict v = judge(model, host, changed);
    auto c = root.clone();
    const Replayed replayed = replay(*c, changed);
    if (v.violations.empty() && v.lowerings == original.lowerings) {
      ASSERT_EQ(replayed, Replayed::Full)
          << "an oracle solution was rejected: "
          << (replayed == Replayed::Conflict ? c->conflict()->to_string()
                                             : "an instance outside its objects appeared")
          << describe(solution, changed);
    }
    if (replayed == Replayed::Full) check_reached(space, model, *c, nullptr);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace

void check_by_sampling(const SampledSpace& space, const spacedsl::Model& model,
                       const CandidateBase& root, std::mt19937& rng,
                       const OracleCheckOptions& options, int* solutions) {
  for (int d = 0; d < options.descents; ++d) {
    auto c = descend(root, rng);
    if (!c) continue;
    ++*solutions;
    Reached s;
    check_reached(space, model, *c, &s);
    if (::testing::Test::HasFatalFailure()) return;
    check_sound_for(space, root, s, rng, options.sequences);
    if (::testing::Test::HasFatalFailure()) return;
    check_perturbations(space, model, root, *c, s, rng, options.perturbations);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

namespace {

/// Backbones the random ones hardly ever produce: three dimensions all of size 2, whose
/// product crosses a bound of 4 (`threads() <= "4"` of property_rules.space); sizes one above
/// the bounds of the test spaces, where `shift` mutants (spacedsl/mutation.h) move them; three
/// statements with a single dimension, which orders transitively while no trigger over pairs of
/// dimensions can lower (trigger.space).
std::vector<Backbone> hand_built_backbones() {
  std::vector<Backbone> out(7);
  for (int d = 0; d < 3; ++d) out[0].add_dim({2});
  const std::int64_t bounds[] = {4, 8, 16, std::int64_t{1} << 40};
  for (std::size_t i = 0; i < std::size(bounds); ++i) {
    out[i + 1].add_dim({bounds[i], bounds[i] + 1});
  }
  out[5].add_mem(100);
  out[5].add_mem(1);
  out[6].add_inst();
  out[6].add_inst(true);
  out[6].add_dim({2});
  return out;
}

/// Checks `space` on `fun`: by sampling, and exhaustively when the enumeration is within bounds
/// and, for a space with triggers, no lowering can run. `checked` counts the backbones checked
/// exhaustively (every one where the space has triggers), `solutions` those the sampling reached.
void check_backbone(const SpaceUnderTest& space, const spacedsl::Model& model, Backbone fun,
                    std::mt19937& rng, const OracleCheckOptions& options, int& checked,
                    int& solutions) {
  World w(model, std::move(fun));
  Status init = Status::Ok;
  auto root = space.make(w.backbone(), &init);
  if (init == Status::Ok) check_by_sampling(space.sampled, model, *root, rng, options, &solutions);
  if (::testing::Test::HasFatalFailure()) return;
  const bool enumerated = w.enumerate(*root, static_cast<std::size_t>(options.max_assignments));
  // Spaces with triggers are seldom enumerable: every backbone sampled counts.
  if (enumerated || !model.triggers.empty()) ++checked;
  if (!enumerated) return;
  if (init == Status::Conflict) {
    ASSERT_TRUE(w.solutions().empty())
        << "the root failed while oracle solutions exist: " << root->conflict()->to_string();
    return;
  }
  check_soundness(space, *root, w, rng, options.sequences);
  if (::testing::Test::HasFatalFailure()) return;
  check_full_assignments(*root, w, rng, static_cast<std::size_t>(options.full_checks));
}

}  // namespace

void check_against_oracle(const SpaceUnderTest& space, const OracleCheckOptions& options) {
  SCOPED_TRACE("space " + space.name);
  spacedsl::Diagnostics diags;
  std::optional<spacedsl::Model> model = spacedsl::load_space(space.file, diags);
  ASSERT_TRUE(model) << space.file;
  int checked = 0;
  int solutions = 0;
  for (Backbone& fun : hand_built_backbones()) {
    SCOPED_TRACE("hand-built backbone");
    std::mt19937 rng(1);
    check_backbone(space, *model, fun, rng, options, checked, solutions);
    if (::testing::Test::HasFatalFailure()) return;
  }
  for (unsigned seed = 1; checked < options.backbones && seed < 40u * options.backbones; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    check_backbone(space, *model, random_backbone(rng), rng, options, checked, solutions);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(checked, 0) << "no backbone small enough to enumerate";
  EXPECT_GT(solutions, 0) << "no random descent reached a solution";
}

}  // namespace sculpt::spacegen::test
