# TILE_SANITIZE: build the whole tree (libraries, tools, tile-tblgen, tests)
# with the listed sanitizers, e.g. -DTILE_SANITIZE='address;undefined'.
#
# The target backends link with --no-undefined, and every library is its
# own shared object beside Debian's uninstrumented libLLVM.so, so only the
# shared sanitizer runtime works (-shared-libsan): each instrumented library
# then names libclang_rt.asan-<arch>.so as a dependency. The runtime's
# folder goes into every binary's run path so that tile-tblgen (which runs
# during the build) and the tools find it without LD_LIBRARY_PATH.
# UndefinedBehaviorSanitizer does not recover: a finding ends the process.
#
# With TILE_BUILD_FUZZERS the tree is also built with
# -fsanitize=fuzzer-no-link, so that the whole-pipeline fuzz target
# (tools/tile-fuzz) gets coverage feedback from every library.
# utils/check-sanitizers.sh configures, builds and runs the suite this way.

if(NOT TILE_SANITIZE)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "TILE_SANITIZE needs clang (the shared sanitizer runtime)")
endif()
if(TILE_BUNDLE)
  message(FATAL_ERROR "TILE_SANITIZE and TILE_BUNDLE do not combine")
endif()
list(JOIN TILE_SANITIZE "," _tile_sanitizers)
set(TILE_SANITIZE_FLAGS -fsanitize=${_tile_sanitizers} -fno-omit-frame-pointer
    -gline-tables-only)
if("undefined" IN_LIST TILE_SANITIZE)
  list(APPEND TILE_SANITIZE_FLAGS -fno-sanitize-recover=undefined)
endif()
set(_tile_coverage)
if(TILE_BUILD_FUZZERS)
  set(_tile_coverage -fsanitize=fuzzer-no-link)
endif()
execute_process(
  COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.so
  OUTPUT_VARIABLE _tile_asan_rt OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT EXISTS "${_tile_asan_rt}")
  message(FATAL_ERROR "TILE_SANITIZE: the shared sanitizer runtime was not "
                      "found (${_tile_asan_rt}); install libclang-rt-22-dev")
endif()
get_filename_component(TILE_SANITIZER_RUNTIME_DIR "${_tile_asan_rt}" DIRECTORY)
# For programs built outside this tree that load the instrumented libraries
# (Python through ctypes, examples/embedding built against the install):
# the runtime must be the process's first library, so they preload it.
set(TILE_SANITIZER_RUNTIME "${_tile_asan_rt}")
message(STATUS "Sanitizers: ${_tile_sanitizers} (runtime in ${TILE_SANITIZER_RUNTIME_DIR})")
add_compile_options(${TILE_SANITIZE_FLAGS} ${_tile_coverage})
add_link_options(${TILE_SANITIZE_FLAGS} -shared-libsan
                 -Wl,-rpath,${TILE_SANITIZER_RUNTIME_DIR})
