# The tool's identity goes into every receipt: version, commit and whether the tree was clean.
# Computed at build time (not configure time) so a rebuild after a commit never reports a stale hash.
set(TILEWISE_VERSION_IN ${CMAKE_CURRENT_LIST_DIR}/version.hpp.in)
set(TILEWISE_VERSION_OUT ${PROJECT_BINARY_DIR}/generated/tilewise_version.hpp)
add_custom_target(tilewise_version_header
  COMMAND ${CMAKE_COMMAND} -DIN=${TILEWISE_VERSION_IN} -DOUT=${TILEWISE_VERSION_OUT}
          -DVERSION=${PROJECT_VERSION} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
          -P ${CMAKE_CURRENT_LIST_DIR}/write_version.cmake
  BYPRODUCTS ${TILEWISE_VERSION_OUT}
  COMMENT "Recording tilewise version and commit")
