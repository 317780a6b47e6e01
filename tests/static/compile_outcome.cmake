# SPDX-License-Identifier: MIT
# compile_outcome(): runs a compiler over a case of a compile test and judges
# the outcome, for the static tests that prove a mistake cannot compile
# (check_typed_ids.cmake, check_pack_layout.cmake). Case 0 must compile;
# any other must fail with a diagnostic matching every regex of MATCH,
# each with the words that say what it wanted (WANT).
#   compile_outcome(WHAT what CASE n COMMAND cc ... [MATCH regex want ...])
function(compile_outcome)
  cmake_parse_arguments(arg "" "WHAT;CASE" "COMMAND;MATCH" ${ARGN})
  execute_process(COMMAND ${arg_COMMAND} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(arg_CASE EQUAL 0)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${arg_WHAT}: case 0 does not compile (exit ${rc}):\n${out}")
    endif()
    message(STATUS "${arg_WHAT}: case 0 compiles")
    return()
  endif()
  if(rc EQUAL 0)
    message(FATAL_ERROR "${arg_WHAT}: case ${arg_CASE} compiles; it must not")
  endif()
  set(said "")
  while(arg_MATCH)
    list(POP_FRONT arg_MATCH regex want)
    if(NOT out MATCHES "${regex}")
      message(FATAL_ERROR "${arg_WHAT}: case ${arg_CASE} fails, but its diagnostic does not say ${want} (exit ${rc}):\n${out}")
    endif()
    string(APPEND said " ${want};")
  endwhile()
  message(STATUS "${arg_WHAT}: case ${arg_CASE} refused:${said}")
endfunction()
