# `cmake --install <build> --prefix <P>` lays out <P>/{bin,lib,include} and the
# CMake package <P>/lib/cmake/MXGemm, so that another project does
#   find_package(MXGemm CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE MXGemm::MXGemmCAPI)
# Libraries and tools join the MXGemmTargets export set where they are
# defined (mxgemm_install_targets); this file adds the headers, the TableGen
# sources needed to extend the dialect, and the package files. See
# docs/Embedding.md.
include(CMakePackageConfigHelpers)

# Public headers (C++ and C) and the .td files, from the source tree.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/mxgemm
  ${PROJECT_SOURCE_DIR}/include/mxgemm-c
  DESTINATION ${MXGEMM_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
# The TableGen-generated declarations the headers include.
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/mxgemm
  DESTINATION ${MXGEMM_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h.inc" PATTERN "*.cpp.inc"
  PATTERN "CMakeFiles" EXCLUDE)

install(EXPORT MXGemmTargets
  NAMESPACE MXGemm::
  FILE MXGemmTargets.cmake
  DESTINATION ${MXGEMM_INSTALL_CMAKEDIR})

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/MXGemmConfig.cmake.in
  ${PROJECT_BINARY_DIR}/lib/cmake/MXGemm/MXGemmConfig.cmake
  INSTALL_DESTINATION ${MXGEMM_INSTALL_CMAKEDIR}
  PATH_VARS MXGEMM_INSTALL_INCLUDEDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/lib/cmake/MXGemm/MXGemmConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/lib/cmake/MXGemm/MXGemmConfig.cmake
  ${PROJECT_BINARY_DIR}/lib/cmake/MXGemm/MXGemmConfigVersion.cmake
  DESTINATION ${MXGEMM_INSTALL_CMAKEDIR})
