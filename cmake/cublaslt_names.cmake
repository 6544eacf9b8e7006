# Names for cuBLASLt's tile, stages and cluster-shape enumerations, read from the installed cublasLt.h so they
# always match the library we link (a receipt shows "128x256x64" instead of a bare enum number).
find_file(TILEWISE_CUBLASLT_HEADER cublasLt.h PATHS ${CUDAToolkit_INCLUDE_DIRS} NO_DEFAULT_PATH REQUIRED)
file(STRINGS ${TILEWISE_CUBLASLT_HEADER} lines
     REGEX "^[ ]*CUBLASLT_(MATMUL_TILE|MATMUL_STAGES|CLUSTER_SHAPE)_[0-9A-Za-z_]+ = [0-9]+,")
set(body "")
foreach(line IN LISTS lines)
  string(REGEX MATCH "CUBLASLT_(MATMUL_TILE|MATMUL_STAGES|CLUSTER_SHAPE)_([0-9A-Za-z_]+) = ([0-9]+)" _ "${line}")
  string(APPEND body "    {\"${CMAKE_MATCH_1}\", ${CMAKE_MATCH_3}, \"${CMAKE_MATCH_2}\"},\n")
endforeach()
file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/generated/cublaslt_names.inc CONTENT "${body}")
