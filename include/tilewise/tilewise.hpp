#pragma once
// tilewise's C++ API: a Context, problems in cuBLAS's column-major orientation (nn.Linear's is linear_problem()),
// gemm, and nn.Linear on packed quantized weights. Link tilewise::tilewise (find_package(tilewise)).
#include "tilewise/context.hpp"
#include "tilewise/error.hpp"
#include "tilewise/problem.hpp"
#include "tilewise/quantized.hpp"
