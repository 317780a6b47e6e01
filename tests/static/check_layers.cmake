# SPDX-License-Identifier: MIT
# Fails if a file includes a file of a layer above its own, and names each
# such include. The layers, lowest first, are the top-level folders
#   runtime < platform < tools < tests
# a file may include its own layer's files and those of the layers below:
# the runtime includes nothing from platform/, tools/ or tests/; the platform
# nothing from tools/ or tests/; the tools nothing from tests/. The rule
# follows the folders, so a file moved or added anywhere under them is
# checked without a change here.
#
#   cmake -DSOURCE_DIR=DIR [-DLAYERS="runtime;platform;tools;tests"] -P check_layers.cmake
#
# Every .c, .h and .cpp file under each layer's folder is scanned for the
# project files it includes (project_includes.cmake: against the includer's
# folder, then each folder of INCLUDE_ROOTS under SOURCE_DIR; system headers
# and files generated into the build folder are not the project's).
cmake_minimum_required(VERSION 3.16)

if(NOT SOURCE_DIR)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=DIR [-DLAYERS=...] -P check_layers.cmake")
endif()
if(NOT DEFINED LAYERS)
  set(LAYERS runtime platform tools tests)
endif()
if(NOT DEFINED INCLUDE_ROOTS)
  set(INCLUDE_ROOTS runtime/include platform/include tools tools/pack tools/common tests/support)
endif()
get_filename_component(SOURCE_DIR "${SOURCE_DIR}" ABSOLUTE)
include(${CMAKE_CURRENT_LIST_DIR}/project_includes.cmake)

# The layer of a path relative to SOURCE_DIR: its index in LAYERS, -1 when
# its first folder is none of them.
function(layer_of path out_var)
  string(REGEX REPLACE "/.*$" "" top "${path}")
  list(FIND LAYERS "${top}" i)
  set(${out_var} ${i} PARENT_SCOPE)
endfunction()

set(n_files 0)
set(n_bad 0)
foreach(layer IN LISTS LAYERS)
  file(GLOB_RECURSE files RELATIVE ${SOURCE_DIR}
       ${SOURCE_DIR}/${layer}/*.c ${SOURCE_DIR}/${layer}/*.h ${SOURCE_DIR}/${layer}/*.cpp)
  list(SORT files)
  list(FIND LAYERS ${layer} own)
  foreach(f IN LISTS files)
    math(EXPR n_files "${n_files} + 1")
    project_includes(${f} targets)
    foreach(target IN LISTS targets)
      layer_of("${target}" theirs)
      if(theirs GREATER own)
        list(GET LAYERS ${theirs} above)
        message(NOTICE "layer: ${f} (${layer}) includes ${target} (${above})")
        math(EXPR n_bad "${n_bad} + 1")
      endif()
    endforeach()
  endforeach()
endforeach()

list(JOIN LAYERS " < " order)
if(n_bad GREATER 0)
  message(FATAL_ERROR "${n_bad} include(s) of a higher layer among ${n_files} files (layers: ${order}; listed above)")
endif()
message(STATUS "no include of a higher layer among ${n_files} files (layers: ${order})")
