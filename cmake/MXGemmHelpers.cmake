# Small helpers shared by every mxgemm component.

# Install layout of `cmake --install` (the package config in
# MXGEMM_INSTALL_CMAKEDIR finds everything relative to the prefix).
set(MXGEMM_INSTALL_BINDIR bin)
set(MXGEMM_INSTALL_LIBDIR lib)
set(MXGEMM_INSTALL_INCLUDEDIR include)
set(MXGEMM_INSTALL_CMAKEDIR lib/cmake/MXGemm)

# mxgemm_install_targets(targets...)
# Installs libraries or tools into the MXGemmTargets export set, and gives
# libraries our include directories as usage requirements: the source and
# build trees while building, <prefix>/include once installed, so that the
# exported MXGemm:: targets carry their headers.
function(mxgemm_install_targets)
  foreach(target ${ARGN})
    get_target_property(type ${target} TYPE)
    if(NOT type STREQUAL "EXECUTABLE")
      target_include_directories(${target} PUBLIC
        $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
        $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
        $<INSTALL_INTERFACE:${MXGEMM_INSTALL_INCLUDEDIR}>)
    endif()
  endforeach()
  install(TARGETS ${ARGN} EXPORT MXGemmTargets
    ARCHIVE DESTINATION ${MXGEMM_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${MXGEMM_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${MXGEMM_INSTALL_BINDIR})
endfunction()

# mxgemm_add_library(name SRCS... [DEPENDS tblgen-targets] [LINK libs])
# A static library of ours that links the shared libMLIR/libLLVM (never the
# static component archives) so that every tool links in seconds. Installed
# and exported as MXGemm::<name>.
function(mxgemm_add_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK})
  mxgemm_install_targets(${name})
endfunction()

# mxgemm_add_tool(name SRCS... LINK libs)
# Installed into <prefix>/bin and exported as MXGemm::<name>.
function(mxgemm_add_tool name)
  cmake_parse_arguments(ARG "" "" "LINK" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ${ARG_LINK})
  mxgemm_install_targets(${name})
endfunction()
