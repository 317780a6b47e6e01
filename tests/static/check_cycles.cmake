# SPDX-License-Identifier: MIT
# Fails if two of the project's files include each other in a loop, or two
# of its object files call each other in a loop, and names each loop found.
#
#   cmake -DNM=nm -DOBJECTS=FILE -DSOURCE_DIR=DIR -DDIRS="runtime;platform"
#         [-DEXCLUDE=REGEX] [-DKNOWN="a|b,c|d|e"] -P check_cycles.cmake
#
# OBJECTS names a CMake file that sets `objects` to the object files to
# check (written by file(GENERATE) from $<TARGET_OBJECTS:...>, one list over
# all the libraries and the CLI, so a loop across two of them counts too).
# An edge a -> b means a's object leaves a symbol undefined that b's
# defines (nm -g: external symbols only, so a file's own static helpers
# never count). Objects are named by the library folder and source path
# ("sluice_runtime.dir/src/pool.c").
#
# DIRS are the folders, under SOURCE_DIR, whose .c, .h and .cpp files are
# scanned for #include "..." and #include <sluice/...>; a name resolves
# against the includer's folder, then each folder in INCLUDE_ROOTS (under
# SOURCE_DIR), and names outside the project are ignored. Files whose path
# matches EXCLUDE are left out.
#
# KNOWN lists loops that are tolerated for now, separated by ',', each as its
# files joined by '|' in the order the report prints them: they are reported as "known", do
# not fail the check, and one that is no longer found is reported as gone.
cmake_minimum_required(VERSION 3.16)

string(REPLACE "," ";" KNOWN "${KNOWN}")
if(NOT DEFINED INCLUDE_ROOTS)
  set(INCLUDE_ROOTS runtime/include platform/include tools tests/support)
endif()
include(${CMAKE_CURRENT_LIST_DIR}/project_includes.cmake)

# --- the loop search, shared by both graphs -------------------------------
# nodes: the list of node names; for each node n, the variable out_<n> lists
# its successors and why_<n>+<m> says what makes the edge. Sets `loops` in
# the caller to the loops found, each as its nodes joined by '|', rotated to
# start at the least name, so each loop is listed once.
function(find_loops nodes out_var)
  # Peel off every node that reaches no loop: repeatedly drop nodes with no
  # successor left. What remains lies on a loop or leads into one.
  set(alive ${nodes})
  set(changed TRUE)
  while(changed)
    set(changed FALSE)
    set(next "")
    foreach(n IN LISTS alive)
      set(keep FALSE)
      foreach(m IN LISTS out_${n})
        if(m IN_LIST alive)
          set(keep TRUE)
          break()
        endif()
      endforeach()
      if(keep)
        list(APPEND next ${n})
      else()
        set(changed TRUE)
      endif()
    endforeach()
    set(alive ${next})
  endwhile()

  set(found "")
  # Every pair that points both ways is a loop of its own.
  foreach(a IN LISTS alive)
    foreach(b IN LISTS out_${a})
      if(b IN_LIST alive AND a IN_LIST out_${b} AND a STRLESS b)
        list(APPEND found "${a}|${b}")
      endif()
    endforeach()
  endforeach()
  # From each remaining node, follow successors on the remaining graph
  # (preferring one not yet on the path) until a node repeats: the path from
  # its first visit is a loop.
  foreach(start IN LISTS alive)
    set(path ${start})
    set(cur ${start})
    while(TRUE)
      set(step "")
      foreach(m IN LISTS out_${cur})
        if(m IN_LIST alive)
          if(NOT m IN_LIST path)
            set(step ${m})
            break()
          elseif(step STREQUAL "")
            set(step ${m})
          endif()
        endif()
      endforeach()
      if(step IN_LIST path)
        list(FIND path ${step} at)
        list(SUBLIST path ${at} -1 loop)
        break()
      endif()
      list(APPEND path ${step})
      set(cur ${step})
    endwhile()
    # Rotate to the least name.
    set(least "")
    foreach(n IN LISTS loop)
      if(least STREQUAL "" OR n STRLESS least)
        set(least ${n})
      endif()
    endforeach()
    list(FIND loop ${least} at)
    list(SUBLIST loop ${at} -1 head)
    list(SUBLIST loop 0 ${at} tail)
    list(APPEND head ${tail})
    list(JOIN head "|" key)
    if(NOT key IN_LIST found)
      list(APPEND found "${key}")
    endif()
  endforeach()
  set(${out_var} "${found}" PARENT_SCOPE)
endfunction()

# Prints each loop (with what makes each of its edges) and counts the ones
# not in KNOWN into bad_<kind>, the others into known_<kind>, in the caller.
function(report kind loops)
  set(n 0)
  set(k 0)
  foreach(key IN LISTS loops)
    string(REPLACE "|" ";" members "${key}")
    list(GET members 0 first)
    list(APPEND members ${first})
    set(text "")
    set(prev "")
    foreach(m IN LISTS members)
      if(prev STREQUAL "")
        set(text "${m}")
      else()
        set(text "${text} -> ${m} (${why_${prev}+${m}})")
      endif()
      set(prev ${m})
    endforeach()
    if(key IN_LIST KNOWN)
      message(NOTICE "known ${kind} loop: ${text}")
      math(EXPR k "${k} + 1")
    else()
      message(NOTICE "${kind} loop: ${text}")
      math(EXPR n "${n} + 1")
    endif()
  endforeach()
  set(bad_${kind} ${n} PARENT_SCOPE)
  set(known_${kind} ${k} PARENT_SCOPE)
endfunction()

# --- the call graph, from nm ----------------------------------------------
if(NOT NM OR NOT OBJECTS OR NOT SOURCE_DIR OR NOT DIRS)
  message(FATAL_ERROR "usage: cmake -DNM=nm -DOBJECTS=FILE -DSOURCE_DIR=DIR -DDIRS=... -P check_cycles.cmake")
endif()
include(${OBJECTS})
set(call_nodes "")
set(undefined_by "")
foreach(o IN LISTS objects)
  string(REGEX REPLACE "^.*/CMakeFiles/([^/]+\\.dir/.*)\\.(o|obj)$" "\\1" name "${o}")
  string(REPLACE "/./" "/" name "${name}")
  execute_process(COMMAND ${NM} -g ${o} OUTPUT_VARIABLE text RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${o}: ${err}")
  endif()
  list(APPEND call_nodes ${name})
  string(REPLACE "\n" ";" lines "${text}")
  set(und_${name} "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^ *[Uwv] ([^ ]+)$")
      list(APPEND und_${name} ${CMAKE_MATCH_1})
    elseif(line MATCHES "^[0-9a-fA-F]+ [A-Z] ([^ ]+)$")
      list(APPEND def_${CMAKE_MATCH_1} ${name})
    endif()
  endforeach()
endforeach()
foreach(a IN LISTS call_nodes)
  set(out_${a} "")
  foreach(sym IN LISTS und_${a})
    foreach(b IN LISTS def_${sym})
      if(NOT b STREQUAL a AND NOT DEFINED why_${a}+${b})
        list(APPEND out_${a} ${b})
        set(why_${a}+${b} ${sym})
      endif()
    endforeach()
  endforeach()
endforeach()
list(LENGTH call_nodes n_objects)
find_loops("${call_nodes}" call_loops)
report(call "${call_loops}")

# --- the include graph -----------------------------------------------------
set(inc_nodes "")
foreach(d IN LISTS DIRS)
  file(GLOB_RECURSE files RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/${d}/*.c ${SOURCE_DIR}/${d}/*.h ${SOURCE_DIR}/${d}/*.cpp)
  foreach(f IN LISTS files)
    if(EXCLUDE AND f MATCHES "${EXCLUDE}")
      continue()
    endif()
    list(APPEND inc_nodes ${f})
  endforeach()
endforeach()
list(REMOVE_DUPLICATES inc_nodes)
foreach(f IN LISTS inc_nodes)
  set(out_${f} "")
  project_includes(${f} targets)
  foreach(target IN LISTS targets)
    if(target IN_LIST inc_nodes AND NOT target STREQUAL f AND NOT DEFINED why_${f}+${target})
      list(APPEND out_${f} ${target})
      set(why_${f}+${target} "#include")
    endif()
  endforeach()
endforeach()
list(LENGTH inc_nodes n_files)
find_loops("${inc_nodes}" include_loops)
report(include "${include_loops}")

foreach(key IN LISTS KNOWN)
  if(NOT key IN_LIST call_loops AND NOT key IN_LIST include_loops)
    message(NOTICE "known loop no longer found (remove it from KNOWN): ${key}")
  endif()
endforeach()
if(bad_call GREATER 0 OR bad_include GREATER 0)
  message(FATAL_ERROR "${bad_call} call loop(s) among ${n_objects} objects, ${bad_include} include loop(s) "
                      "among ${n_files} files (listed above)")
endif()
math(EXPR known "${known_call} + ${known_include}")
message(STATUS "no call loop among ${n_objects} objects, no include loop among ${n_files} files "
               "(${known} known loop(s) tolerated)")
