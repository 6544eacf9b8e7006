// The gemv family as the tuner's search space: groups in order of impact over exactly the feasible set's values, the
// default as the warm start, candidate lists that hold the incumbent and nothing infeasible, a descent that never
// times an infeasible configuration, and its result in the database as the family's canonical text.
#include <gtest/gtest.h>

#include <set>

#include "core/error.hpp"
#include "core/suite.hpp"
#include "expect_error.hpp"
#include "families/gemv/heuristic.hpp"
#include "families/gemv/tuning.hpp"
#include "families/gemv/view.hpp"
#include "select/database.hpp"
#include "tune/campaign.hpp"
#include "tune/descent.hpp"
#include "tune/real_space_descent.hpp"
#include "tune/scripted_measure.hpp"
#include "tune/space.hpp"
#include "tune/space_values.hpp"
#include "tune/to_database.hpp"

namespace tilewise::tune {
namespace {

constexpr int kSms = 132;

std::vector<Problem> shapes() {
  return {make_problem("dec1", 1, 12288, 4096, DType::bf16, Layout::TN),
          make_problem("dec16", 16, 4096, 4096, DType::bf16, Layout::TN),
          make_problem("narrow8", 8, 64, 4096, DType::fp16, Layout::TN)};  // fewer 16-column tiles than SMs
}

gemv::Format native(const Problem& p) { return p.dtype == DType::fp16 ? gemv::Format::fp16 : gemv::Format::bf16; }

bool feasible(const Config& c, const Problem& p) { return gemv::infeasible(gemv::from_fields(c), p).empty(); }

// Incumbents a descent can hold: the default, and one feasible configuration of each engine.
std::vector<Config> incumbents(const Problem& p) {
  std::vector<Config> out{gemv::tunable(p, kSms).warm_start};
  for (gemv::Engine engine : {gemv::Engine::fma, gemv::Engine::mma, gemv::Engine::bulk})
    for (const gemv::Config& c : gemv::feasible_set(p, native(p)))
      if (c.engine == engine) {
        out.push_back(gemv::tuner_fields(c));
        break;
      }
  return out;
}

TEST(GemvSpace, GroupsComeInOrderOfImpactOverTheFamilysFields) {
  const Space s = gemv::space(shapes()[0]);
  ASSERT_EQ(s.groups.size(), 4u);
  EXPECT_EQ(s.groups[0].name, "engine");
  EXPECT_EQ(s.groups[0].fields, (std::vector<std::string>{"engine", "cols", "stages"}));
  EXPECT_EQ(s.groups[1].name, "split");
  EXPECT_EQ(s.groups[1].fields, (std::vector<std::string>{"threads", "ksplit", "interleave"}));
  EXPECT_EQ(s.groups[2].name, "depth");
  EXPECT_EQ(s.groups[2].fields, (std::vector<std::string>{"unroll", "prefetch"}));
  EXPECT_EQ(s.groups[3].name, "stream");
  EXPECT_EQ(s.groups[3].fields, (std::vector<std::string>{"hint", "persistent", "pdl"}));
}

// The fields the family's text leaves out at 0 are written out, last; the text parses back to the same configuration.
TEST(GemvSpace, ConfigurationsConvertThroughTheCanonicalString) {
  const Problem p = shapes()[1];
  const gemv::Config fma = gemv::default_config(p, gemv::Format::bf16, kSms, gemv::Engine::fma);
  EXPECT_EQ(to_string(gemv::tuner_fields(fma)), gemv::to_string(fma) + ",stages=0,prefetch=0,interleave=0");
  const gemv::Config bulk = gemv::default_config(p, gemv::Format::bf16, kSms, gemv::Engine::bulk);
  EXPECT_EQ(to_string(gemv::tuner_fields(bulk)), gemv::to_string(bulk) + ",prefetch=0,interleave=0");
  gemv::Config ahead = fma;
  ahead.prefetch = true;
  gemv::Config slices = gemv::default_config(p, gemv::Format::bf16, kSms, gemv::Engine::mma);
  slices.ksplit = 2, slices.interleave = false;
  gemv::Config turns = slices;
  turns.interleave = true;
  EXPECT_EQ(to_string(gemv::tuner_fields(turns)), gemv::to_string(slices) + ",stages=0,prefetch=0,interleave=1");
  for (const gemv::Config& c : {fma, bulk, ahead, turns}) {
    EXPECT_EQ(gemv::from_fields(gemv::tuner_fields(c)), c) << gemv::to_string(c);
    EXPECT_EQ(gemv::from_fields(parse(to_string(gemv::tuner_fields(c)))), c) << gemv::to_string(c);
  }
  // One field order for every engine, so configurations compare field by field.
  std::vector<std::string> keys, ahead_keys;
  for (const auto& [k, v] : gemv::tuner_fields(bulk).fields) keys.push_back(k);
  for (const auto& [k, v] : gemv::tuner_fields(ahead).fields) ahead_keys.push_back(k);
  EXPECT_EQ(keys, ahead_keys);
}

TEST(GemvSpace, TheSpacePassesItsChecksAndStartsFromTheDefault) {
  for (const Problem& p : shapes()) {
    const Tunable t = gemv::tunable(p, kSms);
    EXPECT_NO_THROW(check_space(t.space, t.warm_start)) << describe(p);
    EXPECT_EQ(gemv::from_fields(t.warm_start), gemv::default_config(p, native(p), kSms)) << describe(p);
  }
  // The warm start follows the SM count the default is made for (the narrow rule counts 16-column tiles per SM).
  const Problem p = make_problem("mid16", 16, 1024, 4096, DType::bf16, Layout::TN);
  EXPECT_EQ(gemv::from_fields(gemv::tunable(p, 78).warm_start), gemv::default_config(p, gemv::Format::bf16, 78));
}

// Every alternative appears in some feasible configuration, and every feasible configuration's values appear among
// the alternatives: the groups cover the feasible set exactly.
TEST(GemvSpace, AlternativesAreExactlyTheValuesOfTheFeasibleSet) {
  for (const Problem& p : shapes()) {
    const Space s = gemv::space(p);
    std::vector<Config> all;
    for (const gemv::Config& c : gemv::feasible_set(p, native(p))) all.push_back(gemv::tuner_fields(c));
    for (const Group& g : s.groups) {
      const testkit::GroupValues v = testkit::group_values(g, all, describe(p));
      EXPECT_EQ(v.listed, v.in_feasible) << describe(p) << " " << g.name;
    }
  }
}

// Beside any incumbent, every round lists the incumbent first and only feasible configurations, each with its group's
// values as asked; the engine round from the default's fma reaches the bulk engine only through a refit (a persistent
// grid with every warp on one tile).
TEST(GemvSpace, EveryCandidateListHoldsTheIncumbentAndOnlyFeasibleConfigurations) {
  for (const Problem& p : shapes()) {
    const Space s = gemv::space(p);
    for (const Config& incumbent : incumbents(p)) {
      ASSERT_TRUE(feasible(incumbent, p)) << to_string(incumbent);
      for (const Group& g : s.groups) {
        SCOPED_TRACE(describe(p) + " " + g.name + " from " + to_string(incumbent));
        const Candidates c = candidates(g, incumbent, s.infeasible, s.fit);
        ASSERT_FALSE(c.configs.empty());
        EXPECT_EQ(c.configs[0], incumbent);
        std::set<std::string> seen;
        for (const Config& cand : c.configs) {
          EXPECT_TRUE(feasible(cand, p)) << to_string(cand);
          EXPECT_TRUE(seen.insert(to_string(cand)).second) << to_string(cand);
        }
        EXPECT_EQ(int(c.configs.size()) + c.infeasible, c.enumerated);
      }
    }
    const Tunable t = gemv::tunable(p, kSms);
    if (gemv::from_fields(t.warm_start).engine != gemv::Engine::fma) continue;
    const Candidates engines = candidates(s.groups[0], t.warm_start, s.infeasible, s.fit);
    EXPECT_GT(engines.refitted, 0) << describe(p);
    std::set<std::string> reached;
    for (const Config& cand : engines.configs) reached.insert(*find(cand, "engine"));
    EXPECT_EQ(reached, (std::set<std::string>{"fma", "mma", "bulk"})) << describe(p);
  }
}

// A refit keeps the values the round asked for and changes as few other fields as it can.
TEST(GemvSpace, ARefitKeepsTheRoundsValuesAndChangesTheFewestOthers) {
  const Problem p = shapes()[0];
  const Space s = gemv::space(p);
  const Config incumbent = gemv::tunable(p, kSms).warm_start;  // fma, no persistent grid
  const Config bulk = apply(incumbent, parse("engine=bulk,cols=16,stages=4"));
  ASSERT_FALSE(feasible(bulk, p));
  const std::optional<Config> fitted = s.fit(bulk, s.groups[0].fields);
  ASSERT_TRUE(fitted);
  EXPECT_TRUE(feasible(*fitted, p));
  EXPECT_EQ(project(*fitted, s.groups[0].fields), parse("engine=bulk,cols=16,stages=4"));
  // The bulk engine needs a persistent grid and every consumer warp on the tile's K: two fields, no more.
  const gemv::Config b = gemv::from_fields(*fitted), from = gemv::from_fields(incumbent);
  EXPECT_TRUE(b.persistent);
  EXPECT_EQ(b.ksplit, b.threads / 32);
  EXPECT_EQ(b.threads, from.threads);
  EXPECT_EQ(b.unroll, from.unroll);
  EXPECT_EQ(b.hint, from.hint);
  EXPECT_EQ(b.pdl, from.pdl);
  // Values no feasible configuration has are not fitted.
  EXPECT_FALSE(s.fit(apply(incumbent, parse("engine=mma,cols=4,stages=0")), s.groups[0].fields));
}

// nn.Linear's orientation (TN, tokens as N): the space is the view's, tokens as the kernel's M, so every candidate is
// what tilewise::gemm runs for the problem (families/gemv/view.hpp).
TEST(GemvSpace, NnLinearsOrientationIsTunedThroughTheView) {
  for (int64_t t : {1, 5, 16}) {
    const Problem linear = make_problem("lin", 6144, t, 4096, DType::bf16, Layout::TN);
    ASSERT_FALSE(gemv::unsupported(linear)) << t;
    const Problem v = gemv::view_of(linear)->problem;
    const Tunable tn = gemv::tunable(linear, kSms);
    EXPECT_EQ(gemv::from_fields(tn.warm_start), gemv::default_config(v, gemv::Format::bf16, kSms));
    EXPECT_EQ(gemv::from_fields(tn.warm_start).m, t);
    for (const Group& g : tn.space.groups)
      for (const auto& values : g.alternatives) {
        const Config c = apply(tn.warm_start, values);
        if (!tn.space.infeasible(c)) EXPECT_EQ(gemv::infeasible(gemv::from_fields(c), v), "") << to_string(c);
      }
  }
  EXPECT_TRUE(gemv::unsupported(make_problem("nn", 6144, 8, 4096, DType::bf16, Layout::NN)));  // x would be K x T
}

TEST(GemvSpace, AProblemOutsideTheFamilyIsUnsupported) {
  const Problem tall = make_problem("tall", 17, 4096, 4096, DType::bf16, Layout::TN);
  EXPECT_TRUE(gemv::unsupported(tall));
  EXPECT_THROW(gemv::space(tall), Unsupported);
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { gemv::tunable(tall, kSms); }), "not M = 17, N = 4096"));
  for (const Problem& p : shapes()) EXPECT_FALSE(gemv::unsupported(p)) << describe(p);
  // NN (x M-major) and fp8 (B's own e4m3 weights, scale 1) are inside: their spaces hold only their own layout and
  // the problem's own weight format, as tilewise::gemm runs them.
  for (const Problem& p : {make_problem("nn", 16, 4096, 4096, DType::fp16, Layout::NN),
                           make_problem("fp8", 16, 4096, 4096, DType::fp8_e4m3, Layout::TN)}) {
    EXPECT_FALSE(gemv::unsupported(p)) << describe(p);
    const Tunable t = gemv::tunable(p, kSms);
    const gemv::Config start = gemv::from_fields(t.warm_start);
    EXPECT_EQ(start.layout, p.layout);
    EXPECT_EQ(start.weights, gemv::native_format(p.dtype));
    EXPECT_EQ(gemv::infeasible(start, p), "");
  }
  // Inside the family but with nothing feasible: K not whole 16-byte chunks of bf16.
  const Problem odd = make_problem("odd", 1, 4096, 4092, DType::bf16, Layout::TN);
  EXPECT_FALSE(gemv::unsupported(odd));
  EXPECT_THROW(gemv::space(odd), Unsupported);
}

TEST(GemvSpace, ADescentTimesOnlyFeasibleConfigurations) {
  for (const Problem& p : shapes())
    testkit::expect_descent_times_only_feasible(p, "gemv", gemv::tunable(p, kSms), 23, 20,
                                                [&](const Config& c) { return feasible(c, p); });
}

// The database holds the family's canonical text, which its validation and the family's parser take.
TEST(GemvSpace, AFinishedCaseEntersTheDatabaseAsTheFamilysText) {
  const Problem p = shapes()[0];
  const Tunable t = gemv::tunable(p, kSms);
  testkit::ScriptedMeasure m;
  m.truth = [](const Config& c) { return 20 + double(testkit::hash(5, to_string(c)) % 1000) / 50; };
  Campaign campaign;
  campaign.mode = "descent";
  campaign.identity = {"NVIDIA H200", 132, "9.0", "580.1", "13.0", "13.1.0", "13.0", "0.1.0"};
  campaign.cases.push_back(start_case({"dec1 bf16 TN gemv", "gemv", p}, t, "descent"));
  descend(campaign.cases[0], t, m);
  const select::Database db = to_database(campaign, "campaign.json");
  const select::Entry* e = select::lookup(db, p, "gemv");
  ASSERT_NE(e, nullptr);
  const gemv::Config best = gemv::from_fields(parse(campaign.cases[0].best));
  EXPECT_EQ(e->config, gemv::to_string(best));
  EXPECT_FALSE(select::invalid_entry("gemv", e->config, p, kSms));
  EXPECT_EQ(gemv::parse_config(e->config), best);
}

}  // namespace
}  // namespace tilewise::tune
