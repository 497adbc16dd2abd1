# write_if_changed(<file> <content>): writes the file only when its content differs, so that a
# generator run at every build does not make everything that includes the file rebuild.
function(write_if_changed path content)
  set(previous "")
  if(EXISTS "${path}")
    file(READ "${path}" previous)
  endif()
  if(NOT "${previous}" STREQUAL "${content}")
    file(WRITE "${path}" "${content}")
  endif()
endfunction()
