# `cmake --install`: the shared library tilewise::tilewise with its public headers (include/tilewise/) and a package
# config for find_package(tilewise), the C ABI tilewise::tilewise_c, and the tilewise command where it was built. The
# kernel sources and the shipped data are inside the library, so an installed program needs no source tree.
# Under scikit-build-core (`pip install .`) only the C ABI is installed, beside the Python package (component python).
include(CMakePackageConfigHelpers)

set(TW_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tilewise)
# The CUDA libraries (cuBLASLt, NVRTC) stay where the toolkit keeps them: the install finds them there.
set_target_properties(tilewise_lib tilewise_c PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)

if(SKBUILD)
  install(TARGETS tilewise_c LIBRARY DESTINATION tilewise COMPONENT python)
  return()
endif()

install(TARGETS tilewise_lib tilewise_c EXPORT tilewiseTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tilewise DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT tilewiseTargets NAMESPACE tilewise:: DESTINATION ${TW_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/tilewiseConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/tilewiseConfig.cmake INSTALL_DESTINATION ${TW_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tilewiseConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tilewiseConfig.cmake ${PROJECT_BINARY_DIR}/tilewiseConfigVersion.cmake
        DESTINATION ${TW_CMAKE_DIR})
if(TILEWISE_BUILD_TOOLS)
  set_target_properties(tilewise PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
  install(TARGETS tilewise RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
