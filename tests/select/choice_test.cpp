// Selection's rule: the database's fastest entry for the signature; else a family's own rule only where the floor's
// measured neighbours all found it faster than cuBLASLt's default; else cuBLASLt's own heuristic. Never an infeasible
// configuration.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/suite.hpp"
#include "families/gemv/config.hpp"
#include "families/gemv/heuristic.hpp"
#include "families/gemv/view.hpp"
#include "families/sm90/config.hpp"
#include "families/sm90/feasibility.hpp"
#include "sample_database.hpp"
#include "sample_floor.hpp"
#include "select/choice.hpp"
#include "select/choice_table.hpp"

namespace tilewise::select {
namespace {

using testkit::problem;

const FloorRule kFloor = testkit::sample_floor();
const Rules kRules{132, &kFloor, nullptr};

TEST(Choice, TheDatabaseGivesItsFastestFamilyForTheSignature) {
  const Database db = testkit::sample_database();
  const Choice c = choose({&db}, problem(4096, 4096, 4096), kRules);
  EXPECT_EQ(c.family, "cublaslt");  // 175.25 us against sm90's 180.5, though the floor would take sm90 here
  EXPECT_EQ(c.config, testkit::kLt);
  EXPECT_EQ(c.source, "database");
  EXPECT_DOUBLE_EQ(c.us, 175.25);
  const Choice nn = choose({&db}, problem(16, 16384, 4096, DType::fp16, Layout::NN), kRules);
  EXPECT_EQ(nn.family, "sm90");
  EXPECT_EQ(nn.config, testkit::kSm90B);
}

TEST(Choice, WithoutTheSignatureTheFloorTakesAFamilyOnlyWhereItsNeighboursMeasuredItFaster) {
  const Database db = testkit::sample_database();
  const Problem near = problem(4096, 4096, 5120);
  EXPECT_FALSE(from_database(db, near));
  const Choice c = choose({&db}, near, kRules);
  EXPECT_EQ(c.source, "floor");
  EXPECT_EQ(c.family, "sm90");
  EXPECT_EQ(c.config, rule_choices(near, 132).back().config);  // sm90's first rule
  EXPECT_EQ(c, choose({}, near, kRules));
  // Near 1024^3 one of the two nearest was slower: cuBLASLt.
  const Choice mixed = choose({}, problem(1024, 1024, 1280), kRules);
  EXPECT_EQ(mixed.family, "cublaslt");
  EXPECT_EQ(mixed.source, "heuristic");
  EXPECT_EQ(mixed.config, "");
  // Nothing measured nearby (another dtype is another class): cuBLASLt.
  EXPECT_EQ(choose({}, problem(4096, 4096, 5120, DType::fp16), kRules).family, "cublaslt");
  EXPECT_EQ(choose({}, problem(300, 20000, 700), kRules).family, "cublaslt");
}

TEST(Choice, TheGemvIsTakenInBothOrientationsWhereMeasured) {
  for (int64_t t : {8, 11, 16}) {
    Problem p = problem(t, 12288, 4096);
    p.ldc = 16;  // a padded C: vendor-aligned, as the points are
    const Choice col = heuristic_choice(p, kRules);
    EXPECT_EQ(col.family, "gemv") << t;
    EXPECT_EQ(gemv::parse_config(col.config).m, t);
  }
  EXPECT_EQ(heuristic_choice(problem(4, 12288, 4096), kRules).family, "cublaslt");  // ldc = 4: no point of its class
  for (int64_t t : {1, 2, 3}) {
    const Choice lin = heuristic_choice(problem(12288, t, 4096), kRules);  // nn.Linear: M = features, N = tokens
    EXPECT_EQ(lin.family, "gemv") << t;
    EXPECT_EQ(gemv::parse_config(lin.config).m, t);
    EXPECT_EQ(lin.source, "floor");
  }
  // NN in nn.Linear's orientation has weights that are not rows of K: the GEMV has no rule there.
  EXPECT_EQ(rule_choices(problem(12288, 2, 4096, DType::bf16, Layout::NN), 132).size(), 1u);
  EXPECT_EQ(heuristic_choice(problem(12288, 16, 4096), kRules).family, "cublaslt");  // no point within reach
}

TEST(Choice, OnAnotherGpuTheFloorTakesNoFamily) {
  Identity h100 = testkit::kH200;
  h100.gpu = "NVIDIA H100 80GB HBM3";
  const Rules foreign{132, &kFloor, &h100};
  EXPECT_EQ(heuristic_choice(problem(4096, 4096, 5120), foreign).family, "cublaslt");
  EXPECT_EQ(heuristic_choice(problem(12288, 1, 4096), foreign).family, "cublaslt");
  const Rules own{132, &kFloor, &testkit::kH200};
  EXPECT_EQ(heuristic_choice(problem(4096, 4096, 5120), own).family, "sm90");
}

TEST(Choice, OperandsTmaCannotLoadHaveNoSm90Rule) {
  EXPECT_TRUE(rule_choices(problem(100, 200, 300), 132).empty());  // rows of 600 bytes: not a multiple of 16
  const Choice c = heuristic_choice(problem(100, 200, 300), kRules);
  EXPECT_EQ(c.family, "cublaslt");
  EXPECT_EQ(c.config, "");
  EXPECT_EQ(c.source, "heuristic");
}

// Over every suite problem, dtype and layout, in both orientations: each family's rule names a configuration in its
// feasible set for the problem as the family sees it.
TEST(Choice, EveryFamilysRuleIsFeasible) {
  int checked = 0;
  for (const char* suite : {"llm24.txt", "square.txt", "decode.txt"})
    for (const SuiteEntry& e : load_suite(std::string(TILEWISE_SOURCE_DIR) + "/suites/" + suite).entries)
      for (DType d : {DType::bf16, DType::fp16, DType::fp8_e4m3})
        for (Layout l : {Layout::TN, Layout::NN})
          for (bool linear : {false, true}) {
            if (d == DType::fp8_e4m3 && l == Layout::NN) continue;
            const Problem p = linear ? make_problem(e.name, e.N, e.M, e.K, d, l) : make_problem(e.name, e.M, e.N, e.K, d, l);
            for (const Choice& c : rule_choices(p, 132)) {
              SCOPED_TRACE(describe(p) + " -> " + c.family + " " + c.config);
              if (c.family == "sm90") EXPECT_FALSE(sm90::infeasible(sm90::parse_config(c.config), p));
              else EXPECT_EQ(gemv::infeasible(gemv::parse_config(c.config), gemv::view_of(p)->problem), "");
              ++checked;
            }
          }
  EXPECT_GT(checked, 400);
}

// The table `tilewise choose` prints: one row a problem, the database's entry with its time where it has the
// signature, the floor's pick or cuBLASLt's own heuristic otherwise, each named as such.
TEST(Choice, TheTableShowsEachProblemsChoiceAndWhereItComesFrom) {
  const Database db = testkit::sample_database();
  Problem tuned = problem(4096, 4096, 4096), untuned = problem(4096, 4096, 5120), no_tma = problem(100, 200, 300);
  tuned.name = "sq4096", untuned.name = "sq4096_k5120", no_tma.name = "odd";
  const std::string table = choice_table({tuned, untuned, no_tma}, {{"db.json", &db}}, kRules);
  std::vector<std::string> lines;
  for (size_t start = 0, end; (end = table.find('\n', start)) != std::string::npos; start = end + 1)
    lines.push_back(table.substr(start, end - start));
  ASSERT_EQ(lines.size(), 4u);  // the header, then one row a problem in order
  EXPECT_NE(lines[0].find("configuration"), std::string::npos);
  EXPECT_EQ(lines[1].rfind("sq4096 ", 0), 0u);
  EXPECT_NE(lines[1].find("T=4096 F=4096"), std::string::npos) << lines[1];  // TN read as nn.Linear
  EXPECT_NE(lines[1].find("cublaslt database     175.25  " + std::string(testkit::kLt)), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("sm90     floor             -  " + choose({}, untuned, kRules).config), std::string::npos)
      << lines[2];
  EXPECT_NE(lines[3].find("cublaslt heuristic         -  (cuBLASLt's own heuristic, asked on the GPU)"),
            std::string::npos)
      << lines[3];
}

// `tilewise choose --why`: under each choice the floor made, what it said of each family whose rule runs the problem;
// under a database's, which database.
TEST(Choice, TheFloorsReasonsFollowEachChoiceItMade) {
  const Database db = testkit::sample_database();
  Problem tuned = problem(4096, 4096, 4096), untuned = problem(4096, 4096, 5120);
  tuned.name = "sq4096", untuned.name = "sq4096_k5120";
  const std::string table = choice_table({tuned, untuned}, {{"none.json", nullptr}, {"db.json", &db}}, kRules, true);
  // A database's entry is followed by the database it came from; the floor's pick by its reasons, taken with the
  // least of its neighbours.
  EXPECT_EQ(table.find("sq4096 "), table.rfind("sq4096 ")) << table;
  const std::string from = "    from: db.json\n";
  EXPECT_EQ(table.substr(table.find('\n', table.find("sq4096 ")) + 1, from.size()), from) << table;
  EXPECT_NE(table.find("    floor: sm90: taken, its 2 nearest points all faster (the least 1.040x)"), std::string::npos)
      << table;
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 4 + std::ptrdiff_t(rule_choices(untuned).size())) << table;
  // A neighbour timed with a configuration the rule no longer chooses: cuBLASLt, and the reason names it.
  FloorRule stale = testkit::sample_floor();
  stale.points[1].families.at("sm90").current = false;
  const std::vector<std::string> why = floor_reasons(untuned, Rules{132, &stale, nullptr});
  ASSERT_FALSE(why.empty());
  EXPECT_NE(why.front().find("which its rule no longer chooses there"), std::string::npos) << why.front();
  EXPECT_EQ(choose({}, untuned, Rules{132, &stale, nullptr}).family, "cublaslt");
  // On another GPU the floor takes nothing, and says so once.
  Identity other = testkit::kH200;
  other.sm_count = 114;
  const std::vector<std::string> elsewhere = floor_reasons(untuned, Rules{114, &kFloor, &other});
  ASSERT_EQ(elsewhere.size(), 1u);
  EXPECT_NE(elsewhere.front().find("it takes no family here"), std::string::npos) << elsewhere.front();
}

// Token buckets: an entry tuned at one token count serves the others of its power-of-two bucket on the same weights,
// only where its configuration is feasible for them, and a padded stride that keeps its alignment is the same entry.
TEST(Bucket, TokenCountsShareAPowerOfTwoBucket) {
  EXPECT_EQ(token_bucket(1), 0);
  EXPECT_EQ(token_bucket(2), 1);
  EXPECT_EQ(token_bucket(3), 2);
  EXPECT_EQ(token_bucket(4), 2);
  EXPECT_EQ(token_bucket(5), 3);
  EXPECT_EQ(token_bucket(8), 3);
  EXPECT_EQ(token_bucket(4097), 13);
  EXPECT_EQ(token_bucket(16384), 14);
}

TEST(Bucket, AnEntryServesItsBucketOnTheSameWeightsAlone) {
  const Problem tuned = problem(6144, 24, 4096);  // nn.Linear: F = 6144, T = 24
  EXPECT_TRUE(serves(tuned, problem(6144, 17, 4096)));
  EXPECT_TRUE(serves(tuned, problem(6144, 32, 4096)));
  EXPECT_FALSE(serves(tuned, problem(6144, 16, 4096)));   // another bucket
  EXPECT_FALSE(serves(tuned, problem(6144, 33, 4096)));
  EXPECT_FALSE(serves(tuned, problem(4096, 24, 4096)));   // other weights
  EXPECT_FALSE(serves(tuned, problem(6144, 24, 4160)));   // other K
  EXPECT_FALSE(serves(tuned, problem(24, 6144, 4096)));   // tokens on the other side
  EXPECT_FALSE(serves(tuned, problem(6144, 24, 4096, DType::fp16)));
  EXPECT_FALSE(serves(tuned, problem(6144, 24, 4096, DType::bf16, Layout::NN)));
  Problem padded = problem(6144, 24, 4096);
  padded.lda += 64, padded.ldb += 64, padded.ldc += 8;
  EXPECT_TRUE(serves(tuned, padded));  // still multiples of 8
  Problem cliff = problem(6144, 24, 4096);
  cliff.ldc += 3;
  EXPECT_FALSE(serves(tuned, cliff));  // cuBLASLt's alignment cliff is another kernel's problem
}

TEST(Bucket, TheNearestFeasibleEntryServesAndExactSignaturesComeFirst) {
  Database db;
  const Problem at8 = problem(28672, 8, 4096), at5 = problem(28672, 5, 4096);
  add(db, testkit::kH200, at8, "cublaslt", testkit::kLt, 30.0);
  add(db, testkit::kH200, at5, "cublaslt", testkit::kLt, 29.0);
  const Problem six = problem(28672, 6, 4096);
  const std::vector<Choice> near = bucket_choices(db, six);
  ASSERT_EQ(near.size(), 2u);
  EXPECT_EQ(near[0].us, 29.0);  // 5 is nearer 6 than 8 is (in log2)
  EXPECT_EQ(near[1].us, 30.0);
  EXPECT_EQ(near[0].source, "bucket");
  EXPECT_EQ(bucket_choices(db, problem(28672, 7, 4096))[0].us, 30.0);  // and 8 nearer 7
  EXPECT_NE(choose({&db}, six, kRules).source, "bucket");  // untimed bucket service is off by default
  Rules buckets = kRules;
  buckets.serve_buckets = true;
  EXPECT_EQ(choose({&db}, six, buckets).source, "bucket");
  EXPECT_EQ(choose({&db}, at8, kRules).source, "database");
  EXPECT_EQ(choose({&db}, at8, kRules).us, 30.0);
  EXPECT_TRUE(bucket_choices(db, problem(28672, 9, 4096)).empty());  // 9 is in 9-16
  // The database each choice came from, by its place in the search: an exact signature in a later database before a
  // bucket of an earlier one; none for the heuristic's.
  Database exact;
  add(exact, testkit::kH200, six, "cublaslt", testkit::kLt, 28.0);
  EXPECT_EQ(choose_sourced({&db, nullptr, &exact}, six, buckets).database, std::optional<size_t>(2));
  EXPECT_EQ(choose_sourced({nullptr, &db}, six, buckets).database, std::optional<size_t>(1));
  EXPECT_EQ(choose_sourced({&db}, problem(28672, 9, 4096), buckets).database, std::nullopt);
}

TEST(Bucket, TheGemvIsRebuiltForTheTokenCountAndAnInfeasibleConfigurationIsNeverServed) {
  Database db;
  const Problem at16 = problem(4096, 16, 4096);  // nn.Linear, 16 tokens: the GEMV holds them as its m
  gemv::Config g = gemv::default_config(gemv::view_of(at16)->problem, gemv::Format::bf16);
  ASSERT_EQ(g.m, 16);
  add(db, testkit::kH200, at16, "gemv", gemv::to_string(g), 15.0);
  gemv::Config packed = g;
  packed.weights = gemv::Format::q8_0;  // a quantized GEMV's entry: tilewise::gemm passes no packed weights
  const Problem at14 = problem(4096, 14, 4096);
  add(db, testkit::kH200, at14, "gemv", gemv::to_string(packed), 9.0);
  for (int64_t t = 9; t <= 16; ++t) {
    const Problem p = problem(4096, t, 4096);
    const std::vector<Choice> near = bucket_choices(db, p);
    for (const Choice& c : near) EXPECT_FALSE(infeasible(c, p)) << c.config << " at " << t;
    if (t == 16) continue;  // its own signature is the database's, not the bucket's
    ASSERT_EQ(near.size(), 1u) << t;
    EXPECT_EQ(gemv::parse_config(near[0].config).m, t);
    EXPECT_EQ(gemv::parse_config(near[0].config).cols, g.cols);  // the rest as tuned
  }
  EXPECT_TRUE(infeasible({"gemv", gemv::to_string(packed), "bucket", 9.0}, at14));
}

}  // namespace
}  // namespace tilewise::select
