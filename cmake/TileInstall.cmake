# cmake --install: the public headers (with the generated .inc tables), every
# library (tile_add_library installs and exports each as Tile::<name>), the
# tools and the CMake package, so that a project outside the tree can
#
#   find_package(Tile CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE Tile::TileExec)
#
# The package finds LLVM through LLVM's own package (the version this build
# used) before it defines the imported targets, whose link interfaces name
# LLVM's targets.
include(CMakePackageConfigHelpers)

set(TILE_INSTALL_CMAKE_DIR lib/cmake/tile)

install(DIRECTORY ${TILE_SOURCE_DIR}/include/tile ${TILE_SOURCE_DIR}/include/tile-c
  DESTINATION include
  FILES_MATCHING PATTERN "*.h" PATTERN "*.def" PATTERN "*.td")
install(DIRECTORY ${TILE_BINARY_DIR}/include/tile
  DESTINATION include
  FILES_MATCHING PATTERN "*.inc")

install(TARGETS tile-opt tile-llc tile-jit tile-tblgen RUNTIME DESTINATION bin)

install(EXPORT TileTargets NAMESPACE Tile:: DESTINATION ${TILE_INSTALL_CMAKE_DIR})
configure_package_config_file(${TILE_SOURCE_DIR}/cmake/TileConfig.cmake.in
  ${TILE_BINARY_DIR}/cmake/TileConfig.cmake
  INSTALL_DESTINATION ${TILE_INSTALL_CMAKE_DIR})
write_basic_package_version_file(${TILE_BINARY_DIR}/cmake/TileConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${TILE_BINARY_DIR}/cmake/TileConfig.cmake
              ${TILE_BINARY_DIR}/cmake/TileConfigVersion.cmake
  DESTINATION ${TILE_INSTALL_CMAKE_DIR})

install(DIRECTORY ${TILE_SOURCE_DIR}/python/tile
  DESTINATION lib/python3/site-packages
  FILES_MATCHING PATTERN "*.py")

# The installed tree as a user meets it (utils/check-install.sh): install
# into the build directory's install-test/, then build examples/embedding
# against it and run it, and run the Python package's tests against it.
add_test(NAME install-tree
  COMMAND ${TILE_SOURCE_DIR}/utils/check-install.sh install ${CMAKE_BINARY_DIR})
set_tests_properties(install-tree PROPERTIES FIXTURES_SETUP TileInstalled)
# Debian's python3, where utils/setup.sh installs python3-numpy.
set(TILE_PYTHON /usr/bin/python3 CACHE FILEPATH
  "Python 3 with NumPy for the Python package's tests")
# In a sanitizer build (TILE_SANITIZE) the programs built outside the tree
# preload the sanitizer runtime; CPython's own allocations are not leak
# checked.
set(_tile_install_env "CMAKE_GENERATOR=${CMAKE_GENERATOR};CXX=${CMAKE_CXX_COMPILER};PYTHON=${TILE_PYTHON}")
if(TILE_SANITIZER_RUNTIME)
  list(APPEND _tile_install_env "TILE_SANITIZER_PRELOAD=${TILE_SANITIZER_RUNTIME}")
endif()
foreach(stage embedding python)
  add_test(NAME install-${stage}
    COMMAND ${TILE_SOURCE_DIR}/utils/check-install.sh ${stage} ${CMAKE_BINARY_DIR})
  set_tests_properties(install-${stage} PROPERTIES
    FIXTURES_REQUIRED TileInstalled
    ENVIRONMENT "${_tile_install_env}")
endforeach()
