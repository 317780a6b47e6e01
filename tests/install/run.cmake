# SPDX-License-Identifier: MIT
# Installs the build into a scratch prefix, then builds and runs a consumer
# project against it twice: with find_package(sluice) and with pkg-config,
# each a consumer that opens a pack and README.md's embedding example, which
# streams EMBED_PACK with worker threads;
# checks the licence is installed and that the installed tool finds the
# installed default profile.
# A cross build passes TOOLCHAIN (the consumers are built with it) and
# EMULATOR (what runs them and the installed tool: qemu).
# cmake -DBUILD_DIR=... -DSOURCE_DIR=tests/install -DWORK_DIR=... [-DTOOLCHAIN=... -DEMULATOR=...] -P run.cmake
file(REMOVE_RECURSE ${WORK_DIR})
set(cross "")
if(TOOLCHAIN)
  set(cross -DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN})
endif()
set(prefix ${WORK_DIR}/prefix)
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} COMMAND_ERROR_IS_FATAL ANY
                OUTPUT_QUIET)
# The licence travels with the libraries (share/doc/sluice/LICENSE).
if(NOT EXISTS ${prefix}/share/doc/sluice/LICENSE)
  message(FATAL_ERROR "install: no share/doc/sluice/LICENSE under ${prefix}")
endif()
foreach(mode cmake pkgconfig)
  set(b ${WORK_DIR}/build-${mode})
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/consumer -B ${b} -G Ninja -DMODE=${mode}
                          -DCMAKE_PREFIX_PATH=${prefix} -DEMBED_SOURCE=${EMBED_SOURCE} -DEMBED_INCLUDE=${EMBED_INCLUDE}
                          ${cross} COMMAND_ERROR_IS_FATAL ANY OUTPUT_QUIET)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${b} COMMAND_ERROR_IS_FATAL ANY OUTPUT_QUIET)
  execute_process(COMMAND ${EMULATOR} ${b}/consumer ${prefix}/share/sluice/budgets/default.profile
                  OUTPUT_VARIABLE out COMMAND_ERROR_IS_FATAL ANY)
  if(NOT out MATCHES "consumer: profile default, block [0-9]+ bytes, cpu/meta arena ok, empty pack refused: SLC_E_")
    message(FATAL_ERROR "consumer (${mode}) printed: ${out}")
  endif()
  message(STATUS "${mode}: ${out}")
  execute_process(COMMAND ${EMULATOR} ${b}/embed ${EMBED_PACK} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "embed: up to frame 241, [1-9][0-9]* loads, [0-9]+ MiB decoded into pages, [1-9][0-9]* spans drawn, 0 holes")
    message(FATAL_ERROR "embed (${mode}) exited ${rc}: ${out}${err}")
  endif()
  message(STATUS "${mode}: ${out}")
endforeach()

if(NOT EXISTS ${prefix}/bin/sluice) # a build of the libraries alone (shared.cmake)
  return()
endif()

# The installed tool reads the installed default profile, not the source
# tree's: with the installed default.profile replaced by sbc-rpi5's, a run
# given no --profile names sbc-rpi5.
set(budgets ${prefix}/share/sluice/budgets)
file(COPY_FILE ${budgets}/sbc-rpi5.profile ${budgets}/default.profile)
execute_process(COMMAND ${EMULATOR} ${prefix}/bin/sluice pack --synthetic city --size 4MiB -o ${WORK_DIR}/city.pack
                OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${EMULATOR} ${prefix}/bin/sluice run ${WORK_DIR}/city.pack --frames 2 --backend host
                OUTPUT_VARIABLE out COMMAND_ERROR_IS_FATAL ANY)
if(NOT out MATCHES "^sluice run: pack city\\.pack \\([^)]*\\), profile sbc-rpi5\n")
  message(FATAL_ERROR "installed sluice run did not read the installed default profile: ${out}")
endif()
message(STATUS "installed default profile: ${budgets}/default.profile")
