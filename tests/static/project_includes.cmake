# SPDX-License-Identifier: MIT
# project_includes(FILE OUT_VAR): sets OUT_VAR to the project files that FILE
# (a path relative to SOURCE_DIR) includes, each relative to SOURCE_DIR, in
# the order of its #include lines (check_cycles.cmake, check_layers.cmake).
# #include "..." and #include <sluice/...> count; a name resolves as the
# compiler would find it in the project: against FILE's folder, then each
# folder of INCLUDE_ROOTS (under SOURCE_DIR). Names that resolve to no file
# of SOURCE_DIR (system headers, files generated into the build folder) are
# not the project's and are left out.
function(project_includes f out_var)
  set(found "")
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
    foreach(root IN ITEMS ${dir} ${INCLUDE_ROOTS})
      if(EXISTS ${SOURCE_DIR}/${root}/${inc} AND NOT IS_DIRECTORY ${SOURCE_DIR}/${root}/${inc})
        file(RELATIVE_PATH target ${SOURCE_DIR} ${SOURCE_DIR}/${root}/${inc})
        list(APPEND found ${target})
        break()
      endif()
    endforeach()
  endforeach()
  set(${out_var} "${found}" PARENT_SCOPE)
endfunction()
