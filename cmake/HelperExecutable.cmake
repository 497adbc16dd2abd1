# cuabi_add_helper(<target> <file name> <sources...>): one of the processes libcuabi starts
# (src/core/child_process.hpp: the compile worker, the image verifier, the remote cache helper).
# libcuabi finds each beside its own file, in <dir of libcuabi.so>/cuabi/ (src/core/helper_executable.hpp),
# so the helper is built into build/cuabi/ and installed into <libdir>/cuabi/, and building cuabi
# builds it. What it links is its own CMakeLists.txt's choice.
function(cuabi_add_helper target file_name)
  add_executable(${target} ${ARGN})
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME ${file_name}
    RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/cuabi)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  add_dependencies(cuabi ${target})
  install(TARGETS ${target} RUNTIME DESTINATION ${CMAKE_INSTALL_LIBDIR}/cuabi)
endfunction()
