# SPDX-License-Identifier: MIT
# Compiles tests/static/typed_ids.c with -DCASE=${CASE} and the runtime's
# public headers. CASE 0 (the right types) must compile; every other case
# must fail with a diagnostic that names an incompatible type and EXPECT (the
# id type the call wanted, or the one it was given), so the test proves that
# chunk ids, object ids and integers do not convert into one another.
#   cmake -DCC=... -DSOURCE=... -DINCLUDE=... -DCASE=n [-DEXPECT=regex] -P check_typed_ids.cmake
cmake_minimum_required(VERSION 3.25)

include(${CMAKE_CURRENT_LIST_DIR}/compile_outcome.cmake)
compile_outcome(WHAT "typed ids" CASE ${CASE}
                COMMAND ${CC} -std=c11 -Wall -Wextra -Werror -fsyntax-only -I${INCLUDE} -DCASE=${CASE} ${SOURCE}
                MATCH "incompatible (pointer )?type" "an incompatible type" "${EXPECT}" "${EXPECT}")
