# tile_add_library(name SOURCES... [DEPENDS tablegen-targets] [LINK libs])
#
# Every Tile library is its own shared link unit that links LLVM through
# Debian's libLLVM.so (one LLVM per process), never the static archives.
function(tile_add_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK" ${ARGN})
  add_library(${name} SHARED ${ARG_UNPARSED_ARGUMENTS})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK} LLVM)
  set_target_properties(${name} PROPERTIES
    BUILD_RPATH "${CMAKE_BINARY_DIR}/lib"
    CXX_VISIBILITY_PRESET default)
endfunction()

# tile_add_tool(name SOURCES... LINK libs)
function(tile_add_tool name)
  cmake_parse_arguments(ARG "" "" "LINK" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ${ARG_LINK} LLVM)
  set_target_properties(${name} PROPERTIES BUILD_RPATH "${CMAKE_BINARY_DIR}/lib")
endfunction()
