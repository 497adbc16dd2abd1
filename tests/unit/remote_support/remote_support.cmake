# The remote cache tests' node program (remote_support/remote_node.cpp), and the remote helper
# built again under ASan and UBSan for its own test. Included by tests/CMakeLists.txt.
add_executable(cuabi_remote_node ${CMAKE_CURRENT_LIST_DIR}/remote_node.cpp)
target_link_libraries(cuabi_remote_node PRIVATE cuabi_objects)
add_dependencies(cuabi_unit_tests cuabi_remote_node)
target_compile_definitions(cuabi_unit_tests PRIVATE CUABI_REMOTE_NODE="$<TARGET_FILE:cuabi_remote_node>")
find_program(CUABI_REDIS_SERVER redis-server)
if(CUABI_REDIS_SERVER)
  target_compile_definitions(cuabi_unit_tests PRIVATE CUABI_REDIS_SERVER="${CUABI_REDIS_SERVER}")
endif()
if(CUABI_REMOTE_HELPER_BUILT)
  target_compile_definitions(cuabi_unit_tests PRIVATE CUABI_REMOTE_HELPER_BUILT=1)
endif()
# Not in a build with another sanitizer (ThreadSanitizer cannot be combined with ASan).
if(CUABI_REMOTE_HELPER_BUILT AND (NOT CUABI_SANITIZE OR CUABI_SANITIZE MATCHES "address"))
  add_executable(cuabi_cache_remote_sanitized ${CUABI_REMOTE_HELPER_SOURCES})
  target_include_directories(cuabi_cache_remote_sanitized PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(cuabi_cache_remote_sanitized PRIVATE PkgConfig::CUABI_HIREDIS PkgConfig::CUABI_SODIUM)
  target_compile_options(cuabi_cache_remote_sanitized PRIVATE -fsanitize=address,undefined -fno-sanitize-recover=all
                         -fno-omit-frame-pointer)
  target_link_options(cuabi_cache_remote_sanitized PRIVATE -fsanitize=address,undefined)
  add_dependencies(cuabi_unit_tests cuabi_cache_remote_sanitized)
  target_compile_definitions(cuabi_unit_tests PRIVATE
    CUABI_REMOTE_HELPER_SANITIZED="$<TARGET_FILE:cuabi_cache_remote_sanitized>")
endif()
