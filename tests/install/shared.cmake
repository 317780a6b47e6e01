# SPDX-License-Identifier: MIT
# A shared build of the libraries alone (BUILD_SHARED_LIBS, no tools, no
# tests) exports the public API and nothing else (cmake/exports.map): every
# symbol the two libraries define for the dynamic linker is slc_ followed by
# a letter or digit, and the ones a consumer cannot do without are there;
# then run.cmake installs it and builds and runs the same consumers against
# it, with find_package and with pkg-config.
# cmake -DSOURCE_ROOT=... -DC_COMPILER=... -DWORK_DIR=... -DSOURCE_DIR=tests/install -DEMBED_...=... -P shared.cmake
file(REMOVE_RECURSE ${WORK_DIR})
set(build ${WORK_DIR}/build)
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_ROOT} -B ${build} -G Ninja -DCMAKE_C_COMPILER=${C_COMPILER}
                        -DBUILD_SHARED_LIBS=ON -DSLUICE_BUILD_TOOLS=OFF -DSLUICE_BUILD_TESTS=OFF
                        -DCMAKE_BUILD_TYPE=Release COMMAND_ERROR_IS_FATAL ANY OUTPUT_QUIET)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${build} COMMAND_ERROR_IS_FATAL ANY OUTPUT_QUIET)
foreach(lib runtime/libsluice_runtime.so platform/libsluice_platform.so)
  execute_process(COMMAND nm -D --defined-only ${build}/${lib} OUTPUT_VARIABLE syms COMMAND_ERROR_IS_FATAL ANY)
  string(REGEX MATCHALL "[^ \n]+\n" names "${syms}")
  set(count 0)
  foreach(line ${names})
    string(STRIP "${line}" name)
    if(NOT name MATCHES "^slc_[a-z0-9]")
      message(FATAL_ERROR "${lib} exports '${name}', which is not sluice's public API")
    endif()
    math(EXPR count "${count} + 1")
  endforeach()
  message(STATUS "${lib}: ${count} symbols, every one slc_ public API")
endforeach()
execute_process(COMMAND nm -D --defined-only ${build}/runtime/libsluice_runtime.so OUTPUT_VARIABLE syms)
foreach(name slc_memory_init slc_pack_open slc_stream_create slc_stream_begin_frame slc_pool_lookup slc_status_name)
  if(NOT syms MATCHES " T ${name}\n")
    message(FATAL_ERROR "libsluice_runtime.so does not export ${name}")
  endif()
endforeach()
set(BUILD_DIR ${build})
set(WORK_DIR ${WORK_DIR}/consumers)
include(${CMAKE_CURRENT_LIST_DIR}/run.cmake)
