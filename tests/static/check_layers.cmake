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
# Every .c, .h and .cpp file under each layer's folder is scanned for
# #include "..." and #include <sluice/...>; a name resolves as the compiler
# would find it in the project: against the includer's folder, then each
# folder of INCLUDE_ROOTS (under SOURCE_DIR); names that resolve to no file
# of SOURCE_DIR (system headers, files generated into the build folder) are
# not the project's and are skipped.
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
    get_filename_component(dir ${f} DIRECTORY)
    file(STRINGS ${SOURCE_DIR}/${f} lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]")
    foreach(line IN LISTS lines)
      if(line MATCHES "#[ \t]*include[ \t]*\"([^\"]+)\"")
        set(inc ${CMAKE_MATCH_1})
      elseif(line MATCHES "#[ \t]*include[ \t]*<(sluice/[^>]+)>")
        set(inc ${CMAKE_MATCH_1})
      else()
        continue()
      endif()
      set(target "")
      foreach(root IN ITEMS ${dir} ${INCLUDE_ROOTS})
        if(EXISTS ${SOURCE_DIR}/${root}/${inc} AND NOT IS_DIRECTORY ${SOURCE_DIR}/${root}/${inc})
          file(RELATIVE_PATH target ${SOURCE_DIR} ${SOURCE_DIR}/${root}/${inc})
          break()
        endif()
      endforeach()
      if(target STREQUAL "")
        continue()
      endif()
      layer_of("${target}" theirs)
      if(theirs GREATER own)
        list(GET LAYERS ${theirs} above)
        message(NOTICE "layer: ${f} (${layer}) includes ${target} (${above}): #include \"${inc}\"")
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
