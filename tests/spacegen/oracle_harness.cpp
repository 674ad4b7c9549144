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

/// One tiny backbone: its instances, their universes and the oracle's verdict on every full
/// assignment (value positions, one per instance).
class World {
 public:
  World(const spacedsl::Model& model, Backbone fun) : model_(model), fun_(std::move(fun)) {}

  /// Lists the instances of `root`; false when the enumeration exceeds `max`.
  bool enumerate(const CandidateBase& root, std::size_t max) {
    host_ = host_of(fun_);
    instances_ = root.live_instances();
    std::size_t count = 1;
    for (std::size_t i = 0; i < instances_.size(); ++i) {
      const InstanceRef& ref = instances_[i];
      index_[key_of(ref)] = i;
      const spacedsl::Choice& choice = model_.choices[ref.choice];
      std::vector<std::int64_t> values;
      if (choice.kind == spacedsl::ChoiceKind::Integer) {
        std::vector<Binding> b;
        for (std::size_t a = 0; a < choice.args.size(); ++a) {
          b.push_back({choice.args[a].name, choice.args[a].set, ref.objects[a]});
        }
        values = host_.range(choice.universe, b);
        std::sort(values.begin(), values.end());
        values.erase(std::unique(values.begin(), values.end()), values.end());
        for (std::uint32_t p : root.domain(ref)) {
          EXPECT_EQ(root.value_name(ref, p), std::to_string(values.at(p)));
        }
      } else {
        for (std::size_t v = 0; v < choice.values.size(); ++v) values.push_back(v);
      }
      count *= values.size();
      if (count > max) return false;
      universes_.push_back(std::move(values));
    }
    judge_all(count);
    return true;
  }

  const std::vector<InstanceRef>& instances() const { return instances_; }
  const std::vector<std::vector<std::uint32_t>>& solutions() const { return solutions_; }
  /// The assignments the oracle rejects, those with a single violation (one clause on one
  /// tuple) first: dropping that clause from the generator accepts them.
  const std::vector<std::vector<std::uint32_t>>& rejected() const { return rejected_; }
  std::size_t near_misses() const { return near_misses_; }
  const Backbone& backbone() const { return fun_; }

 private:
  void judge_all(std::size_t count) {
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
      const std::size_t violations = oracle::evaluate(model_, host_, assignment, 2).size();
      (violations == 0 ? solutions_ : violations == 1 ? rejected_ : far).push_back(digits);
      for (std::size_t i = 0; i < digits.size(); ++i) {
        if (++digits[i] < universes_[i].size()) break;
        digits[i] = 0;
      }
    }
    near_misses_ = rejected_.size();
    rejected_.insert(rejected_.end(), far.begin(), far.end());
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
      auto reposted = c->clone();
      ASSERT_EQ(space.repost(*reposted), Status::Ok)
          << "posting again found a conflict: " << reposted->conflict()->to_string();
      ASSERT_EQ(reposted->to_string(), c->to_string()) << "not a fixpoint after step " << step;
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

}  // namespace

void check_against_oracle(const SpaceUnderTest& space, const OracleCheckOptions& options) {
  SCOPED_TRACE("space " + space.name);
  spacedsl::Diagnostics diags;
  std::optional<spacedsl::Model> model = spacedsl::load_space(space.file, diags);
  ASSERT_TRUE(model) << space.file;
  int checked = 0;
  for (unsigned seed = 1; checked < options.backbones && seed < 40u * options.backbones; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    World w(*model, random_backbone(rng));
    Status init = Status::Ok;
    auto root = space.make(w.backbone(), &init);
    if (!w.enumerate(*root, static_cast<std::size_t>(options.max_assignments))) continue;
    ++checked;
    if (init == Status::Conflict) {
      ASSERT_TRUE(w.solutions().empty())
          << "the root failed while oracle solutions exist: " << root->conflict()->to_string();
      continue;
    }
    check_soundness(space, *root, w, rng, options.sequences);
    if (::testing::Test::HasFatalFailure()) return;
    check_full_assignments(*root, w, rng, static_cast<std::size_t>(options.full_checks));
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(checked, 0) << "no backbone small enough to enumerate";
}

}  // namespace sculpt::spacegen::test
