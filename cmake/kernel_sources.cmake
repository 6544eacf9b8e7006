# The kernel sources NVRTC compiles at run time (kernels/, every .cuh and .h), embedded in the library as strings so
# that an installed program needs no source tree (src/jit/nvrtc.hpp: kernel_sources). Each file is one raw string of
# the generated source, named by its path under kernels/; the values are substituted once (@ONLY), never rescanned.
# Adding or editing a kernel file re-runs the configure step, which rewrites the generated source only when it changed.
file(GLOB_RECURSE TW_KERNEL_FILES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/kernels/*.cuh ${PROJECT_SOURCE_DIR}/kernels/*.h)
list(SORT TW_KERNEL_FILES)
set(TW_KERNEL_TABLE "")
set(TW_KERNEL_INDEX 0)
foreach(file IN LISTS TW_KERNEL_FILES)
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${file})
  file(RELATIVE_PATH name ${PROJECT_SOURCE_DIR}/kernels ${file})
  file(READ ${file} TW_KERNEL_${TW_KERNEL_INDEX})
  if(TW_KERNEL_${TW_KERNEL_INDEX} MATCHES "\\)tilewise_kernel\"")
    message(FATAL_ERROR "${file} holds the raw string's closing delimiter")
  endif()
  string(APPEND TW_KERNEL_TABLE "      {\"${name}\", R\"tilewise_kernel(@TW_KERNEL_${TW_KERNEL_INDEX}@)tilewise_kernel\"},\n")
  math(EXPR TW_KERNEL_INDEX "${TW_KERNEL_INDEX} + 1")
endforeach()
file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/generated/kernel_sources.cpp
     CONTENT "// Generated from kernels/ by cmake/kernel_sources.cmake: do not edit.
#include \"jit/nvrtc.hpp\"

namespace tilewise::jit {

const std::vector<KernelSource>& embedded_kernel_sources() {
  static const std::vector<KernelSource> sources = {
${TW_KERNEL_TABLE}  };
  return sources;
}

}  // namespace tilewise::jit
" @ONLY)
