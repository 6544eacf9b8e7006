#include "report/svg.hpp"
