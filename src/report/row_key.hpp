#pragma once
// The cells that name a first-screen row (report/current.hpp) in every table that lists rows: its suite, orientation
// and dtype, led by its mode and GPU where a table mixes them, and its ldc class. One home, so the tables name a row
// alike.
#include <vector>

#include "report/current.hpp"
#include "report/tabular.hpp"

namespace tilewise::report {

std::vector<Cell> key_head();  // suite, orientation, dtype
std::vector<Cell> key_cells(const CurrentRow& r);
std::vector<Cell> mode_key_head();  // mode, GPU, suite, orientation, dtype
std::vector<Cell> mode_key_cells(const CurrentRow& r);
Cell ldc_class_cell(const CurrentRow& r);  // "aligned", or "not a multiple of 8" (cuBLASLt's alignment cliff)

}  // namespace tilewise::report
