# Build types without debug info (Release, MinSizeRel) still give the ABI check its types: the
# library's objects are compiled with -g (which changes no generated code), and after linking the
# DWARF moves to libcuabi.so.X.Y.Z.debug beside the library, which keeps only a .gnu_debuglink
# naming that file. abi/abi_check.py follows the link (abidw --debug-info-dir); the installed
# library carries no debug info, and the .debug file is not installed.
if(NOT CMAKE_BUILD_TYPE MATCHES "^(Release|MinSizeRel)$")
  return()
endif()
if(NOT CMAKE_OBJCOPY)
  message(FATAL_ERROR "objcopy not found: a ${CMAKE_BUILD_TYPE} build splits the library's debug "
                      "info into a separate file with it. Fix: install binutils")
endif()
target_compile_options(cuabi_objects PRIVATE -g)
add_custom_command(TARGET cuabi POST_BUILD
  COMMAND ${CMAKE_OBJCOPY} --only-keep-debug $<TARGET_FILE_NAME:cuabi> $<TARGET_FILE_NAME:cuabi>.debug
  COMMAND ${CMAKE_OBJCOPY} --strip-debug --add-gnu-debuglink=$<TARGET_FILE_NAME:cuabi>.debug $<TARGET_FILE_NAME:cuabi>
  WORKING_DIRECTORY $<TARGET_FILE_DIR:cuabi>
  COMMENT "Moving libcuabi's debug info into $<TARGET_FILE_NAME:cuabi>.debug"
  VERBATIM)
