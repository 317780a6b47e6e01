# Compiles tests/static/typed_ids.c with -DCASE=${CASE} and the runtime's
# public headers. CASE 0 (the right types) must compile; every other case
# must fail with a diagnostic that names an incompatible type and EXPECT (the
# id type the call wanted, or the one it was given), so the test proves that
# chunk ids, object ids and integers do not convert into one another.
#   cmake -DCC=... -DSOURCE=... -DINCLUDE=... -DCASE=n [-DEXPECT=regex] -P check_typed_ids.cmake
cmake_minimum_required(VERSION 3.25)

execute_process(COMMAND ${CC} -std=c11 -Wall -Wextra -Werror -fsyntax-only -I${INCLUDE} -DCASE=${CASE} ${SOURCE}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(CASE EQUAL 0)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "typed ids: the well-typed case does not compile (exit ${rc}):\n${out}")
  endif()
  message(STATUS "typed ids: the well-typed case compiles")
  return()
endif()
if(rc EQUAL 0)
  message(FATAL_ERROR "typed ids: case ${CASE} compiles; it mixes id types and must not")
endif()
if(NOT out MATCHES "incompatible (pointer )?type")
  message(FATAL_ERROR "typed ids: case ${CASE} fails, but not on an incompatible type (exit ${rc}):\n${out}")
endif()
if(NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "typed ids: case ${CASE}'s diagnostic does not name ${EXPECT}:\n${out}")
endif()
message(STATUS "typed ids: case ${CASE} refused: incompatible type, naming ${EXPECT}")
