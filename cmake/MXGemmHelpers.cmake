# Small helpers shared by every mxgemm component.

# mxgemm_add_library(name SRCS... [DEPENDS tblgen-targets] [LINK libs])
# A static library of ours that links the shared libMLIR/libLLVM (never the
# static component archives) so that every tool links in seconds.
function(mxgemm_add_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK})
endfunction()

# mxgemm_add_tool(name SRCS... LINK libs)
function(mxgemm_add_tool name)
  cmake_parse_arguments(ARG "" "" "LINK" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ${ARG_LINK})
endfunction()
