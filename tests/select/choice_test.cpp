// Selection's rule: the database's fastest entry for the signature, else the heuristic (gemv for small-M TN decode,
// sm90's first shape rule, cuBLASLt where TMA cannot load the operands), never an infeasible configuration.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/suite.hpp"
#include "families/gemv/config.hpp"
#include "families/sm90/config.hpp"
#include "families/sm90/feasibility.hpp"
#include "sample_database.hpp"
#include "select/choice.hpp"
#include "select/choice_table.hpp"

namespace tilewise::select {
namespace {

using testkit::problem;

TEST(Choice, TheDatabaseGivesItsFastestFamilyForTheSignature) {
  const Database db = testkit::sample_database();
  const Choice c = choose(&db, problem(4096, 4096, 4096), 132);
  EXPECT_EQ(c.family, "cublaslt");  // 175.25 us against sm90's 180.5
  EXPECT_EQ(c.config, testkit::kLt);
  EXPECT_EQ(c.source, "database");
  EXPECT_DOUBLE_EQ(c.us, 175.25);
  const Choice nn = choose(&db, problem(16, 16384, 4096, DType::fp16, Layout::NN), 132);
  EXPECT_EQ(nn.family, "sm90");
  EXPECT_EQ(nn.config, testkit::kSm90B);
}

TEST(Choice, WithoutTheSignatureOrADatabaseTheHeuristicChooses) {
  const Database db = testkit::sample_database();
  EXPECT_FALSE(from_database(db, problem(4096, 4096, 2048)));
  const Choice c = choose(&db, problem(4096, 4096, 2048), 132);
  EXPECT_EQ(c.source, "heuristic");
  EXPECT_EQ(c, choose(nullptr, problem(4096, 4096, 2048), 132));
  EXPECT_EQ(c.family, "sm90");
  // The same sizes with another stride are another signature.
  Problem padded = problem(4096, 4096, 4096);
  padded.lda += 64;
  EXPECT_EQ(choose(&db, padded, 132).source, "heuristic");
}

TEST(Choice, DecodeRowsUpToEightInTnGoToTheGemv) {
  for (int64_t m : {1, 4, 8}) {
    const Choice c = heuristic_choice(problem(m, 12288, 4096), 132);
    EXPECT_EQ(c.family, "gemv") << m;
    EXPECT_EQ(gemv::parse_config(c.config).m, m);
  }
  EXPECT_EQ(heuristic_choice(problem(16, 12288, 4096), 132).family, "sm90");
  EXPECT_EQ(heuristic_choice(problem(8, 12288, 4096, DType::bf16, Layout::NN), 132).family, "sm90");
  // NN and fp8 run the GEMV only from a database (choice.hpp says why)
  EXPECT_EQ(heuristic_choice(problem(1, 12288, 4096, DType::fp8_e4m3), 132).family, "sm90");
  EXPECT_EQ(heuristic_choice(problem(1, 12288, 4096, DType::fp16), 132).family, "gemv");
}

TEST(Choice, OperandsTmaCannotLoadGoToCublasltsOwnHeuristic) {
  const Choice c = heuristic_choice(problem(100, 200, 300), 132);  // rows of 600 bytes: not a multiple of 16
  EXPECT_EQ(c.family, "cublaslt");
  EXPECT_EQ(c.config, "");
  EXPECT_EQ(c.source, "heuristic");
}

// Over every suite problem, dtype and layout: the heuristic's configuration is in its family's feasible set, and
// cuBLASLt's own heuristic is taken only where sm90 cannot load the operands at all.
TEST(Choice, TheHeuristicNeverChoosesAnInfeasibleConfiguration) {
  int checked = 0;
  for (const char* suite : {"llm24.txt", "square.txt", "decode.txt"})
    for (const SuiteEntry& e : load_suite(std::string(TILEWISE_SOURCE_DIR) + "/suites/" + suite).entries)
      for (DType d : {DType::bf16, DType::fp16, DType::fp8_e4m3})
        for (Layout l : {Layout::TN, Layout::NN}) {
          if (d == DType::fp8_e4m3 && l == Layout::NN) continue;
          const Problem p = make_problem(e.name, e.M, e.N, e.K, d, l);
          const Choice c = heuristic_choice(p, 132);
          SCOPED_TRACE(describe(p) + " -> " + c.family + " " + c.config);
          if (c.family == "sm90") EXPECT_FALSE(sm90::infeasible(sm90::parse_config(c.config), p));
          else if (c.family == "gemv") EXPECT_EQ(gemv::infeasible(gemv::parse_config(c.config), p), "");
          else EXPECT_THROW(sm90::require_tma_expressible(p), Unsupported);  // decode NN: lda = M under 16 bytes
          ++checked;
        }
  EXPECT_GT(checked, 200);
}

// The table `tilewise choose` prints: one row a problem, the database's entry with its time where it has the
// signature, the heuristic's choice otherwise, and cuBLASLt's own heuristic named as such.
TEST(Choice, TheTableShowsEachProblemsChoiceAndWhereItComesFrom) {
  const Database db = testkit::sample_database();
  Problem tuned = problem(4096, 4096, 4096), untuned = problem(4096, 4096, 2048), no_tma = problem(100, 200, 300);
  tuned.name = "sq4096", untuned.name = "sq4096_k2048", no_tma.name = "odd";
  const std::string table = choice_table({tuned, untuned, no_tma}, &db, 132);
  std::vector<std::string> lines;
  for (size_t start = 0, end; (end = table.find('\n', start)) != std::string::npos; start = end + 1)
    lines.push_back(table.substr(start, end - start));
  ASSERT_EQ(lines.size(), 4u);  // the header, then one row a problem in order
  EXPECT_NE(lines[0].find("configuration"), std::string::npos);
  EXPECT_EQ(lines[1].rfind("sq4096 ", 0), 0u);
  EXPECT_NE(lines[1].find("cublaslt database     175.25  " + std::string(testkit::kLt)), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("sm90     heuristic         -  " + choose(nullptr, untuned, 132).config), std::string::npos)
      << lines[2];
  EXPECT_NE(lines[3].find("cublaslt heuristic         -  (cuBLASLt's own heuristic, asked on the GPU)"),
            std::string::npos)
      << lines[3];
}

}  // namespace
}  // namespace tilewise::select
