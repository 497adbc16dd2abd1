# The precompiled-header tests' stand-in for an NVRTC without PCH support (nvrtc_without_pch.cpp):
# a shared library loaded through CUABI_NVRTC_PATH. Included by tests/CMakeLists.txt.
add_library(cuabi_test_nvrtc_without_pch SHARED ${CMAKE_CURRENT_LIST_DIR}/nvrtc_without_pch.cpp)
target_include_directories(cuabi_test_nvrtc_without_pch PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
set_target_properties(cuabi_test_nvrtc_without_pch PROPERTIES CXX_VISIBILITY_PRESET hidden)
target_link_libraries(cuabi_test_nvrtc_without_pch PRIVATE ${CMAKE_DL_LIBS})
add_dependencies(cuabi_unit_tests cuabi_test_nvrtc_without_pch)
target_compile_definitions(cuabi_unit_tests PRIVATE
  CUABI_TEST_NVRTC_WITHOUT_PCH="$<TARGET_FILE:cuabi_test_nvrtc_without_pch>")
