# Generates spaces/host_error.space, whose host code does not compile, and compiles what
# spacegen wrote: the compiler must name host_error.space:12, where the host code is.
#   cmake -DSPACEGEN=... -DCXX=... -DSOURCE_DIR=... -DSPACES_DIR=... -DOUT=... -P host_error.cmake
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${SPACEGEN} host_error.space --out ${OUT} --namespace host_error
  --backbone-type sculpt::spacegen::test::Backbone --header tests/spacegen/test_backbone.h
  WORKING_DIRECTORY ${SPACES_DIR} RESULT_VARIABLE status ERROR_VARIABLE spacegen_errors)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "spacegen failed: ${spacegen_errors}")
endif()
file(GLOB sources ${OUT}/*.cpp)
set(messages "")
foreach(source ${sources})
  execute_process(COMMAND ${CXX} -std=c++20 -fsyntax-only -I${SOURCE_DIR} ${source}
    ERROR_VARIABLE errors OUTPUT_VARIABLE output)
  string(APPEND messages "${errors}${output}")
endforeach()
if(NOT messages MATCHES "host_error\\.space:12:[^\n]*no_such_member")
  message(FATAL_ERROR "no message names host_error.space:12:\n${messages}")
endif()
message(STATUS "the compiler names the .space line")
