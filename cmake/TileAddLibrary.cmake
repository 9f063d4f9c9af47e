# Normally every Tile library is its own shared link unit that links LLVM
# through Debian's libLLVM.so (one LLVM per process), never the static
# archives. With TILE_BUNDLE the libraries are static and the tools link
# LLVM's static archives, so that a tool can be moved to a machine without
# LLVM (e.g. the GPU machine) carrying only libz, libzstd and libstdc++.
if(TILE_BUNDLE)
  set(TILE_LIBRARY_TYPE STATIC)
  # The static libraries also go into the shared libTileCAPI.
  set(CMAKE_POSITION_INDEPENDENT_CODE ON)
  # LLVM's exported link interface names libz3 (LLVM_WITH_Z3) though no
  # tool calls the Z3 solver; --as-needed drops it (and any other unused
  # library), so the tool needs nothing the GPU machine lacks.
  add_link_options(LINKER:--as-needed)
  llvm_map_components_to_libnames(TILE_LLVM_LIBS
    core support orcjit jitlink passes irreader bitreader bitwriter target mc
    analysis transformutils codegen asmprinter
    x86codegen x86asmparser x86desc x86info
    nvptxcodegen nvptxdesc nvptxinfo
    amdgpucodegen amdgpuasmparser amdgpudesc amdgpuinfo amdgpuutils
    spirvcodegen spirvdesc spirvinfo)
else()
  set(TILE_LIBRARY_TYPE SHARED)
  set(TILE_LLVM_LIBS LLVM)
endif()

# tile_record_links(name links...): the direct links of a library or tool,
# for <build>/link-graph.txt, which utils/check-link-graph.py compares with
# docs/Architecture.md (ctest: architecture-link-graph).
function(tile_record_links name)
  file(RELATIVE_PATH _dir ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
  string(REPLACE ";" " " _links "${ARGN}")
  set_property(GLOBAL APPEND PROPERTY TILE_LINK_GRAPH "${_dir} ${name}: ${_links}")
endfunction()

# tile_add_all_subdirectories(): add_subdirectory() of every folder of the
# current one that has a CMakeLists.txt, in name order; a folder added later
# is picked up on the next configure (lib/Target's backends, the test-only
# backends of unittests/Target).
function(tile_add_all_subdirectories)
  file(GLOB dirs LIST_DIRECTORIES true CONFIGURE_DEPENDS
    ${CMAKE_CURRENT_SOURCE_DIR}/*)
  list(SORT dirs)
  foreach(dir ${dirs})
    if(IS_DIRECTORY ${dir} AND EXISTS ${dir}/CMakeLists.txt)
      add_subdirectory(${dir})
    endif()
  endforeach()
endfunction()

# tile_add_library(name SOURCES... [DEPENDS tablegen-targets] [LINK libs])
function(tile_add_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK" ${ARGN})
  add_library(${name} ${TILE_LIBRARY_TYPE} ${ARG_UNPARSED_ARGUMENTS})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK} ${TILE_LLVM_LIBS})
  target_include_directories(${name} INTERFACE $<INSTALL_INTERFACE:include>)
  tile_record_links(${name} ${ARG_LINK})
  set_target_properties(${name} PROPERTIES
    BUILD_RPATH "${CMAKE_BINARY_DIR}/lib"
    INSTALL_RPATH "$ORIGIN"
    CXX_VISIBILITY_PRESET default)
  # Installed and exported as Tile::<name> (cmake/TileInstall.cmake).
  install(TARGETS ${name} EXPORT TileTargets
    LIBRARY DESTINATION lib ARCHIVE DESTINATION lib)
endfunction()

# tile_add_tool(name SOURCES... LINK libs)
function(tile_add_tool name)
  cmake_parse_arguments(ARG "" "" "LINK" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ${ARG_LINK} ${TILE_LLVM_LIBS})
  tile_record_links(${name} ${ARG_LINK})
  set_target_properties(${name} PROPERTIES
    BUILD_RPATH "${CMAKE_BINARY_DIR}/lib"
    INSTALL_RPATH "$ORIGIN/../lib")
endfunction()
