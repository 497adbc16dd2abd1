# The cache tests' helper program: a separate process that uses the cache (a fresh process must
# hit the disk; many processes must share one directory safely). Included by tests/CMakeLists.txt.
add_executable(cuabi_cache_test_helper ${CMAKE_CURRENT_LIST_DIR}/cache_helper.cpp)
target_link_libraries(cuabi_cache_test_helper PRIVATE cuabi_objects)
add_dependencies(cuabi_unit_tests cuabi_cache_test_helper)
target_compile_definitions(cuabi_unit_tests PRIVATE
  CUABI_CACHE_TEST_HELPER="$<TARGET_FILE:cuabi_cache_test_helper>")
