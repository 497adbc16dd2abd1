# The compile worker tests' helper program (worker_host.cpp): a fresh process per scenario that
# reads the worker's environment at start, and a stand-in worker that lies. Included by
# tests/CMakeLists.txt.
add_executable(cuabi_worker_test_host ${CMAKE_CURRENT_LIST_DIR}/worker_host.cpp)
target_link_libraries(cuabi_worker_test_host PRIVATE cuabi_objects)
add_dependencies(cuabi_unit_tests cuabi_worker_test_host)
target_compile_definitions(cuabi_unit_tests PRIVATE
  CUABI_WORKER_TEST_HOST="$<TARGET_FILE:cuabi_worker_test_host>"
  CUABI_TEST_WORKER="${PROJECT_BINARY_DIR}/cuabi/cuabi-compile-worker")
# No compile worker may outlive the test that started it: after every test that may start one,
# none of this build's workers is left running.
add_test(NAME NoOrphanedCompileWorkers
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/no_orphaned_workers.sh ${PROJECT_BINARY_DIR}/cuabi/cuabi-compile-worker)
set_tests_properties(NoOrphanedCompileWorkers PROPERTIES LABELS unit FIXTURES_CLEANUP compile_workers TIMEOUT 30)
add_test(NAME NoOrphanedCompileWorkers.FailsOnAPlantedWorker
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/no_orphaned_workers_can_fail.sh ${CMAKE_CURRENT_LIST_DIR}/no_orphaned_workers.sh)
set_tests_properties(NoOrphanedCompileWorkers.FailsOnAPlantedWorker PROPERTIES LABELS unit TIMEOUT 30)
