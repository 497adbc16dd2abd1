# Generates cuabi_proc_table.inc -- one CUABI_PROC(name) line per function declared with
# CUABI_API in cuabi.h, sorted by name -- for cuabi_get_proc_address(). Run at build time
# (cmake -P) so the table can never drift from the header.
#   -DHEADER=<cuabi.h> -DOUTPUT=<file>
file(READ "${HEADER}" header_text)
string(REGEX MATCHALL "CUABI_API[^;(]*[ *](cuabi_[a-z0-9_]+)\\(" declarations "${header_text}")
set(names "")
foreach(declaration IN LISTS declarations)
  string(REGEX REPLACE ".*[ *](cuabi_[a-z0-9_]+)\\($" "\\1" name "${declaration}")
  list(APPEND names "${name}")
endforeach()
list(REMOVE_DUPLICATES names)
list(SORT names)
set(content "/* Generated from cuabi.h by cmake/ProcTable.cmake; do not edit. */\n")
foreach(name IN LISTS names)
  string(APPEND content "CUABI_PROC(${name})\n")
endforeach()
include(${CMAKE_CURRENT_LIST_DIR}/WriteIfChanged.cmake)
write_if_changed("${OUTPUT}" "${content}")
