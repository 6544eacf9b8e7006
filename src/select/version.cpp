// The library's version for its users (include/tilewise/context.hpp), from the header every receipt's is written from.
#include "tilewise/context.hpp"
#include "tilewise_version.hpp"

namespace tilewise {

std::string_view version() { return build::version; }

}  // namespace tilewise
