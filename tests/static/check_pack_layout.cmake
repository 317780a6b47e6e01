# SPDX-License-Identifier: MIT
# Compiles platform/src/render_layout.c (the shaders' page layout,
# platform/shaders/pack_layout.h, asserted against sluice/pack_format.h) with
# a copy of one of the two headers in which FROM is replaced by TO, found
# before the tree's own. CASE 0 (no change) must compile; every other case
# must fail on a static assertion whose message matches EXPECT, so the test
# proves that a layout change made on one side only stops the build.
#   cmake -DCC=... -DSOURCE=... -DSHADERS=... -DINCLUDE=... -DWORK=dir -DCASE=n
#         [-DHEADER=pack_layout.h|sluice/pack_format.h -DFROM=regex -DTO=text -DEXPECT=regex] -P check_pack_layout.cmake
cmake_minimum_required(VERSION 3.25)

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/sluice)
if(NOT CASE EQUAL 0)
  if(HEADER STREQUAL "pack_layout.h")
    set(original ${SHADERS}/pack_layout.h)
  else()
    set(original ${INCLUDE}/${HEADER})
  endif()
  file(READ ${original} text)
  string(REGEX REPLACE "${FROM}" "${TO}" changed "${text}")
  if(changed STREQUAL text)
    message(FATAL_ERROR "pack layout: case ${CASE}: '${FROM}' is not in ${original}; the case changes nothing")
  endif()
  file(WRITE ${WORK}/${HEADER} "${changed}")
endif()

include(${CMAKE_CURRENT_LIST_DIR}/compile_outcome.cmake)
compile_outcome(WHAT "pack layout (${HEADER} '${FROM}' -> '${TO}')" CASE ${CASE}
                COMMAND ${CC} -std=c11 -Wall -Wextra -Werror -fsyntax-only -I${WORK} -I${SHADERS} -I${INCLUDE} ${SOURCE}
                MATCH "static.assert" "a static assertion" "${EXPECT}" "${EXPECT}")
