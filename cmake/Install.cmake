# Installation: header, library with its SONAME links, the compile worker beside it, the cuabi
# CLI, a CMake package exporting cuabi::cuabi, a pkg-config file, the documents the header refers
# to, the licence and the changelog (checked by ctest -L packaging, which also moves an install
# tree and builds against the moved copy, and by ctest -L docs against the README's list).
#
#   include/cuabi/cuabi.h
#   lib/libcuabi.so -> libcuabi.so.1 -> libcuabi.so.<PROJECT_VERSION>
#   lib/cuabi/cuabi-compile-worker                       (src/worker/CMakeLists.txt)
#   lib/cuabi/cuabi-cache-remote                         (src/remote/CMakeLists.txt, with hiredis and libsodium)
#   lib/cmake/cuabi/cuabiConfig.cmake, cuabiConfigVersion.cmake, cuabiTargets*.cmake
#   lib/pkgconfig/cuabi.pc
#   bin/cuabi
#   share/doc/cuabi/{errors,safety,compile,linking,cache,device,graphs,memory,multi-gpu,tensor-maps,
#   abi-policy,profiling,performance,cli}.md,
#   share/doc/cuabi/LICENSE, share/doc/cuabi/CHANGELOG.md
#
# Nothing installed names the prefix: the CMake package and cuabi.pc locate everything relative to
# where they are found, and the tool finds the library through $ORIGIN, so an install tree can be
# moved or unpacked anywhere.
#
# find_package(cuabi 1) accepts any 1.x (SameMajorVersion): the project's major version is the
# ABI major, which is the SONAME.
include(CMakePackageConfigHelpers)

set(CUABI_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/cuabi)

# The include directory reaches the exported target once, from the library's INSTALL_INTERFACE
# (an INCLUDES DESTINATION here would list it a second time).
install(TARGETS cuabi EXPORT cuabiTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/cuabi/cuabi.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/cuabi)
# The header sends readers to these for background (share/doc/cuabi/errors.md, ...).
set(CUABI_INSTALLED_DOCS errors safety compile linking cache device graphs memory multi-gpu tensor-maps abi-policy
    profiling performance cli)
list(TRANSFORM CUABI_INSTALLED_DOCS REPLACE "(.+)" "${PROJECT_SOURCE_DIR}/docs/\\1.md")
install(FILES ${CUABI_INSTALLED_DOCS} DESTINATION ${CMAKE_INSTALL_DOCDIR})
# Whoever receives a binary install receives the licence it comes under, and what changed.
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

if(TARGET cuabi_cli)
  # The installed tool finds the installed library next to it, wherever the prefix is.
  file(RELATIVE_PATH cuabi_bin_to_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
  set_target_properties(cuabi_cli PROPERTIES INSTALL_RPATH "$ORIGIN/${cuabi_bin_to_lib}")
  install(TARGETS cuabi_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# --- CMake package ------------------------------------------------------------------------------
install(EXPORT cuabiTargets NAMESPACE cuabi:: DESTINATION ${CUABI_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/cuabiConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cuabiConfig.cmake INSTALL_DESTINATION ${CUABI_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cuabiConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cuabiConfig.cmake ${PROJECT_BINARY_DIR}/cuabiConfigVersion.cmake
  DESTINATION ${CUABI_INSTALL_CMAKEDIR})

# --- pkg-config ---------------------------------------------------------------------------------
# cuabi.pc names its prefix relative to its own directory (${pcfiledir}), which pkg-config
# resolves to wherever it found the file. Only a LIBDIR or INCLUDEDIR given as an absolute path is
# written as such (that install cannot be moved).
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(CUABI_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(CUABI_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH CUABI_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
  string(REGEX REPLACE "/$" "" CUABI_PC_TO_PREFIX "${CUABI_PC_TO_PREFIX}")  # some CMake versions end it in /
  set(CUABI_PC_PREFIX "\${pcfiledir}/${CUABI_PC_TO_PREFIX}")
  set(CUABI_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(CUABI_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(CUABI_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/pkgconfig/cuabi.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/cuabi.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/cuabi.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
