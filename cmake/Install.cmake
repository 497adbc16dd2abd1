# Installation: header, library with its SONAME links, the cuabi CLI, a CMake package exporting
# cuabi::cuabi, and a pkg-config file (checked by ctest -L packaging).
#
#   include/cuabi/cuabi.h
#   lib/libcuabi.so -> libcuabi.so.1 -> libcuabi.so.1.0.0
#   lib/cmake/cuabi/cuabiConfig.cmake, cuabiConfigVersion.cmake, cuabiTargets*.cmake
#   lib/pkgconfig/cuabi.pc
#   bin/cuabi
#
# find_package(cuabi 1) accepts any 1.x (SameMajorVersion): the project's major version is the
# ABI major, which is the SONAME.
include(CMakePackageConfigHelpers)

set(CUABI_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/cuabi)

install(TARGETS cuabi EXPORT cuabiTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/cuabi/cuabi.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/cuabi)

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
# cuabi.pc names absolute directories (CMAKE_INSTALL_FULL_LIBDIR, _INCLUDEDIR). They are worked
# out when installing rather than when configuring, so that `cmake --install --prefix P` writes
# P's directories into the file it puts under P.
set(CUABI_PC_FILE ${PROJECT_BINARY_DIR}/pkgconfig/cuabi.pc)
install(CODE "
  foreach(kind LIBDIR INCLUDEDIR)
    if(kind STREQUAL \"LIBDIR\")
      set(dir \"${CMAKE_INSTALL_LIBDIR}\")
    else()
      set(dir \"${CMAKE_INSTALL_INCLUDEDIR}\")
    endif()
    if(NOT IS_ABSOLUTE \"\${dir}\")
      set(dir \"\${CMAKE_INSTALL_PREFIX}/\${dir}\")
    endif()
    set(CMAKE_INSTALL_FULL_\${kind} \"\${dir}\")
  endforeach()
  set(PROJECT_VERSION \"${PROJECT_VERSION}\")
  configure_file(\"${PROJECT_SOURCE_DIR}/pkgconfig/cuabi.pc.in\" \"${CUABI_PC_FILE}\" @ONLY)
")
install(FILES ${CUABI_PC_FILE} DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
