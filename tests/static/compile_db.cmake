# SPDX-License-Identifier: MIT
# Writes OUT: the entries of IN (a compile_commands.json) for the files the
# static analysis covers (runtime/, platform/, tools/ under SOURCE_DIR), one
# entry per file. The tests compile the runtime a second time with the test
# configuration (SLC_ASSERT to cmocka); analysing the product build once is
# enough, and analysing a file twice would report its findings twice.
# LIST receives the files, one a line.
#   cmake -DIN=... -DOUT=... -DLIST=... -DSOURCE_DIR=... -P compile_db.cmake
cmake_minimum_required(VERSION 3.25)

file(READ "${IN}" db)
string(JSON n LENGTH "${db}")
set(out "[")
set(seen "")
set(sep "")
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  string(JSON entry GET "${db}" ${i})
  string(JSON f GET "${entry}" file)
  if(NOT f MATCHES "^${SOURCE_DIR}/(runtime|platform|tools)/" OR f IN_LIST seen)
    continue()
  endif()
  list(APPEND seen "${f}")
  string(APPEND out "${sep}\n${entry}")
  set(sep ",")
endforeach()
string(APPEND out "\n]\n")
file(WRITE "${OUT}" "${out}")
list(JOIN seen "\n" lines)
file(WRITE "${LIST}" "${lines}\n")
list(LENGTH seen count)
message(STATUS "static: ${count} files from ${IN}")
