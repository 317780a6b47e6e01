# Installs the build into a scratch prefix, then builds and runs a consumer
# project against it twice: with find_package(sluice) and with pkg-config.
# cmake -DBUILD_DIR=... -DSOURCE_DIR=tests/install -DWORK_DIR=... -P run.cmake
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} COMMAND_ERROR_IS_FATAL ANY
                OUTPUT_QUIET)
foreach(mode cmake pkgconfig)
  set(b ${WORK_DIR}/build-${mode})
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/consumer -B ${b} -G Ninja -DMODE=${mode}
                          -DCMAKE_PREFIX_PATH=${prefix} COMMAND_ERROR_IS_FATAL ANY OUTPUT_QUIET)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${b} COMMAND_ERROR_IS_FATAL ANY OUTPUT_QUIET)
  execute_process(COMMAND ${b}/consumer ${prefix}/share/sluice/budgets/default.profile
                  OUTPUT_VARIABLE out COMMAND_ERROR_IS_FATAL ANY)
  if(NOT out MATCHES "consumer: profile default, block [0-9]+ bytes, cpu/meta arena ok, empty pack refused: SLC_E_")
    message(FATAL_ERROR "consumer (${mode}) printed: ${out}")
  endif()
  message(STATUS "${mode}: ${out}")
endforeach()
