# Compiles and runs the C example of README.md, so the README cannot drift from the header.
#   cmake -DREADME=... -DCC=... -DINCLUDE_DIR=... -DLIBRARY_DIR=... -DWORK_DIR=... -P readme_example.cmake
# Without a GPU the example must fail the way the README promises: a status name and a message
# that says what is missing and how to fix it.
file(READ "${README}" readme)
string(FIND "${readme}" "## Using it from C" section)
if(section EQUAL -1)
  message(FATAL_ERROR "README.md has no '## Using it from C' section")
endif()
string(SUBSTRING "${readme}" ${section} -1 rest)
string(FIND "${rest}" "```c\n" start)
string(SUBSTRING "${rest}" ${start} -1 rest)
string(SUBSTRING "${rest}" 5 -1 rest)
string(FIND "${rest}" "```" end)
string(SUBSTRING "${rest}" 0 ${end} example)
file(MAKE_DIRECTORY "${WORK_DIR}")
file(WRITE "${WORK_DIR}/readme_example.c" "${example}")
execute_process(
  COMMAND "${CC}" -std=c99 -pedantic -Wall -Wextra -Werror -I${INCLUDE_DIR} readme_example.c
          -o readme_example -L${LIBRARY_DIR} -lcuabi -Wl,-rpath,${LIBRARY_DIR}
  WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE compiled OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT compiled EQUAL 0)
  message(FATAL_ERROR "the README's C example does not compile:\n${out}")
endif()
execute_process(COMMAND "${WORK_DIR}/readme_example" RESULT_VARIABLE ran OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(ran EQUAL 0)
  if(NOT out MATCHES "y\\[3\\] = 7")
    message(FATAL_ERROR "the README's C example ran but printed:\n${out}")
  endif()
  message(STATUS "README C example ran on the GPU: ${out}")
elseif(out MATCHES "CUABI_ERROR_(DRIVER_NOT_FOUND|NO_DEVICE|DRIVER_TOO_OLD): .*Fix: ")
  message(STATUS "README C example compiled; without a GPU it says: ${out}")
else()
  message(FATAL_ERROR "the README's C example failed (${ran}):\n${out}")
endif()
