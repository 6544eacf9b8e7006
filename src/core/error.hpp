#pragma once
// The library's errors are part of its public API (include/tilewise/error.hpp); the tool's code includes them here.
#include "tilewise/error.hpp"
