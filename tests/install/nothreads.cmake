# SPDX-License-Identifier: MIT
# A build without threads (-DSLUICE_THREADS=OFF, the libraries alone, static):
# neither library references a pthread_ function, sluice.pc and
# sluiceConfig.cmake ask for no thread library, and a consumer built against
# the installed package with find_package and with pkg-config sees worker
# threads refused, naming the option, and streams the embedding example's
# pack with workers = 0 (tests/install/consumer/nothreads.c).
# cmake -DSOURCE_ROOT=... -DC_COMPILER=... -DWORK_DIR=... -DSOURCE_DIR=tests/install -DEMBED_INCLUDE=...
#       -DEMBED_PACK=... [-DVULKAN=ON|OFF] -P nothreads.cmake
file(REMOVE_RECURSE ${WORK_DIR})
set(build ${WORK_DIR}/build)
set(prefix ${WORK_DIR}/prefix)
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_ROOT} -B ${build} -G Ninja -DCMAKE_C_COMPILER=${C_COMPILER}
                        -DSLUICE_THREADS=OFF -DSLUICE_BUILD_TOOLS=OFF -DSLUICE_BUILD_TESTS=OFF -DSLUICE_VULKAN=${VULKAN}
                        -DCMAKE_BUILD_TYPE=Release COMMAND_ERROR_IS_FATAL ANY OUTPUT_QUIET)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${build} COMMAND_ERROR_IS_FATAL ANY OUTPUT_QUIET)
foreach(lib runtime/libsluice_runtime.a platform/libsluice_platform.a)
  execute_process(COMMAND nm --undefined-only ${build}/${lib} OUTPUT_VARIABLE syms COMMAND_ERROR_IS_FATAL ANY)
  if(syms MATCHES "(pthread_[a-z_]+)")
    message(FATAL_ERROR "${lib} of a build without threads references ${CMAKE_MATCH_1}")
  endif()
endforeach()
execute_process(COMMAND nm --defined-only ${build}/platform/libsluice_platform.a OUTPUT_VARIABLE syms
                COMMAND_ERROR_IS_FATAL ANY)
if(NOT syms MATCHES " T slc_platform_workers_start\n")
  message(FATAL_ERROR "libsluice_platform.a of a build without threads lacks slc_platform_workers_start")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --install ${build} --prefix ${prefix} COMMAND_ERROR_IS_FATAL ANY OUTPUT_QUIET)
file(GLOB_RECURSE pc ${prefix}/*/sluice.pc)
file(GLOB_RECURSE config ${prefix}/*/sluiceConfig.cmake)
file(READ "${pc}" pc_text)
file(READ "${config}" config_text)
if(pc_text MATCHES "pthread" OR NOT pc_text MATCHES "\nLibs: ")
  message(FATAL_ERROR "sluice.pc of a build without threads: ${pc_text}")
endif()
if(NOT config_text MATCHES "if\\(OFF\\) # the worker threads")
  message(FATAL_ERROR "sluiceConfig.cmake of a build without threads asks for Threads: ${config_text}")
endif()
foreach(mode cmake pkgconfig)
  set(b ${WORK_DIR}/build-${mode})
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/consumer -B ${b} -G Ninja -DMODE=${mode} -DNOTHREADS=ON
                          -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_PREFIX_PATH=${prefix}
                          -DEMBED_INCLUDE=${EMBED_INCLUDE} COMMAND_ERROR_IS_FATAL ANY OUTPUT_QUIET)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${b} COMMAND_ERROR_IS_FATAL ANY OUTPUT_QUIET)
  execute_process(COMMAND ${b}/nothreads ${EMBED_PACK} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0
     OR NOT out MATCHES "nothreads: start refused: platform: workers: cannot start 2: this build has no threads \\(SLUICE_THREADS=OFF\\)"
     OR NOT out MATCHES "nothreads: up to frame 241, [1-9][0-9]* loads \\([1-9][0-9]* on the caller, 0 by workers\\), [1-9][0-9]* spans drawn, 0 holes")
    message(FATAL_ERROR "nothreads (${mode}) exited ${rc}: ${out}${err}")
  endif()
  message(STATUS "${mode}: ${out}")
endforeach()
