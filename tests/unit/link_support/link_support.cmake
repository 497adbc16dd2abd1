# The link tests' device library, built with the toolkit's nvcc at test time: a fatbin holding
# LTO-IR (nvcc -dlto -dc -fatbin), a host object with LTO-IR embedded (nvcc -dlto -dc) and a static
# library of such objects (nvcc -dlto -rdc=true -lib).
# Included by tests/CMakeLists.txt; the paths reach the unit tests and the GPU tests.
set(CUABI_TEST_LINK_DIR ${CMAKE_CURRENT_BINARY_DIR}/link_library)
set(CUABI_TEST_LINK_FATBIN ${CUABI_TEST_LINK_DIR}/thrice.fatbin)
set(CUABI_TEST_LINK_OBJECT ${CUABI_TEST_LINK_DIR}/thrice.o)
set(CUABI_TEST_LINK_ARCHIVE ${CUABI_TEST_LINK_DIR}/libthrice.a)
set(CUABI_TEST_LINK_SOURCE ${CMAKE_CURRENT_LIST_DIR}/link_library.cu)
add_custom_command(
  OUTPUT ${CUABI_TEST_LINK_FATBIN} ${CUABI_TEST_LINK_OBJECT} ${CUABI_TEST_LINK_ARCHIVE}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CUABI_TEST_LINK_DIR}
  COMMAND ${CUDAToolkit_NVCC_EXECUTABLE} -arch=sm_90 -dlto -dc -fatbin ${CUABI_TEST_LINK_SOURCE}
          -o ${CUABI_TEST_LINK_FATBIN}
  COMMAND ${CUDAToolkit_NVCC_EXECUTABLE} -arch=sm_90 -dlto -dc ${CUABI_TEST_LINK_SOURCE}
          -o ${CUABI_TEST_LINK_OBJECT}
  COMMAND ${CUDAToolkit_NVCC_EXECUTABLE} -arch=sm_90 -dlto -rdc=true -lib ${CUABI_TEST_LINK_SOURCE}
          -o ${CUABI_TEST_LINK_ARCHIVE}
  DEPENDS ${CUABI_TEST_LINK_SOURCE}
  COMMENT "Building the link tests' device library with nvcc")
add_custom_target(cuabi_test_link_library
  DEPENDS ${CUABI_TEST_LINK_FATBIN} ${CUABI_TEST_LINK_OBJECT} ${CUABI_TEST_LINK_ARCHIVE})
add_dependencies(cuabi_unit_tests cuabi_test_link_library)
target_compile_definitions(cuabi_unit_tests PRIVATE
  CUABI_TEST_LINK_FATBIN="${CUABI_TEST_LINK_FATBIN}" CUABI_TEST_LINK_OBJECT="${CUABI_TEST_LINK_OBJECT}"
  CUABI_TEST_LINK_ARCHIVE="${CUABI_TEST_LINK_ARCHIVE}")
# A stand-in nvJitLink that reports an older version or crashes on request (stand_in_nvjitlink.cpp).
add_library(cuabi_stand_in_nvjitlink SHARED ${CMAKE_CURRENT_LIST_DIR}/stand_in_nvjitlink.cpp)
add_dependencies(cuabi_unit_tests cuabi_stand_in_nvjitlink)
target_compile_definitions(cuabi_unit_tests PRIVATE
  CUABI_TEST_STAND_IN_NVJITLINK="$<TARGET_FILE:cuabi_stand_in_nvjitlink>")
