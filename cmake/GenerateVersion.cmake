# cmake -DSOURCE_DIR=... -DOUTPUT=... -DVERSION=... -P GenerateVersion.cmake
#
# Writes TILE_VERSION and TILE_REVISION (the commit, empty outside a git
# checkout) to OUTPUT, touching it only when they changed.
find_package(Git QUIET)
set(REVISION "")
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD
    WORKING_DIRECTORY ${SOURCE_DIR}
    OUTPUT_VARIABLE REVISION OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE RC ERROR_QUIET)
  if(NOT RC EQUAL 0)
    set(REVISION "")
  endif()
endif()
file(WRITE ${OUTPUT}.tmp
  "#define TILE_VERSION \"${VERSION}\"\n#define TILE_REVISION \"${REVISION}\"\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUTPUT}.tmp ${OUTPUT})
file(REMOVE ${OUTPUT}.tmp)
