#include "report/row_key.hpp"

namespace tilewise::report {

std::vector<Cell> key_head() { return {{"suite"}, {"orientation"}, {"dtype"}}; }

std::vector<Cell> key_cells(const CurrentRow& r) {
  return {{r.figures.suite.empty() ? "-" : r.figures.suite}, {r.figures.orientation}, {r.figures.dtype}};
}

std::vector<Cell> mode_key_head() {
  std::vector<Cell> head = key_head();
  head.insert(head.begin(), {Cell{"mode"}, Cell{"GPU"}});
  return head;
}

std::vector<Cell> mode_key_cells(const CurrentRow& r) {
  std::vector<Cell> cells = key_cells(r);
  cells.insert(cells.begin(), {Cell{mode_arm(r.mode)}, Cell{r.gpu}});
  return cells;
}

Cell ldc_class_cell(const CurrentRow& r) { return {r.figures.aligned ? "aligned" : "not a multiple of 8"}; }

}  // namespace tilewise::report
