// One table, three renderings: the page's HTML, CSV and markdown carry the same cells.
#include "report/tabular.hpp"

#include <gtest/gtest.h>

#include "report/html.hpp"

namespace tilewise::report {
namespace {

using testkit::HtmlContains;

Table sample_table() {
  Table t{"t", "c", "cap",
          {{"problem"}, {"arm"}, {"", "<svg/>", "", "", "", 1, true}, {"figures"}, {"note"}},
          {{"r0-a", "", "r0", {{"arm", "a"}}, {{"sq, 1"}, {"a"}, {"", "<svg>bar</svg>"}, {"1.0"}, {"say \"hi\""}}},
           {"r0-b", "", "r0", {}, {{"sq, 1"}, {"b"}, {"declined: no | kernel", "", "", "muted", "", 3}}},
           {"", "odd", "", {}, {{"x"}, {"<y>", "<b>y</b>"}, {"", ""}, {"line\nbreak"}, {""}}}},
          1};
  return t;
}

TEST(Tabular, TheFilesCarryEveryCellButTheDrawings) {
  EXPECT_EQ(table_csv(sample_table()),
            "problem,arm,figures,note\n"
            "\"sq, 1\",a,1.0,\"say \"\"hi\"\"\"\n"
            "\"sq, 1\",b,declined: no | kernel,\n"  // the spanned figure and note columns are empty
            "x,<y>,\"line\nbreak\",\n");
  EXPECT_EQ(table_markdown(sample_table()),
            "| problem | arm | figures | note |\n"
            "|---|---|---|---|\n"
            "| sq, 1 | a | 1.0 | say \"hi\" |\n"
            "| sq, 1 | b | declined: no \\| kernel |  |\n"
            "| x | <y> | line break |  |\n");
}

TEST(Tabular, ThePageJoinsAGroupsLeadingCellsAndLinksTheFiles) {
  const std::string html = table_html(sample_table());
  EXPECT_TRUE(HtmlContains(html, R"(<table id="table-t" class="c"><caption>cap <span class="files">)"
                                 R"(<a href="tables/t.csv">CSV</a> &middot; <a href="tables/t.md">markdown</a>)"));
  EXPECT_TRUE(HtmlContains(html, R"(<th class="drawing"><svg/></th>)"));
  EXPECT_TRUE(HtmlContains(html, R"(<tbody id="r0"><tr id="r0-a" data-arm="a"><td rowspan="2">sq, 1</td>)"));
  EXPECT_TRUE(HtmlContains(html, R"(<tr id="r0-b"><td>b</td><td class="muted" colspan="3">declined: no | kernel</td>)"));
  EXPECT_TRUE(HtmlContains(html, R"(<td>say &quot;hi&quot;</td>)"));
  EXPECT_TRUE(HtmlContains(html, R"(</tbody><tbody><tr class="odd"><td>x</td><td><b>y</b></td>)"));
  std::vector<Table> kept;
  EXPECT_EQ(add_table(kept, sample_table()), html);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].name, "t");
}

}  // namespace
}  // namespace tilewise::report
