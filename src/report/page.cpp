#include "report/page.hpp"
