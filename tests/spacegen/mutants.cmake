# The mutation check of the oracle harness (CTest driver, cmake -P): for each space of SPACES
# (comma-separated), build and run spacegen_oracle_mutant_<space> unmutated (it must pass), then
# once per mutant of `spacegen --list-mutants` (it must fail), and print a table of the mutants
# killed. Fails when a mutant survives, but for those of SURVIVORS (`space:mutant` items joined
# with `,`), known not to be killable. Builds run under `flock $SCULPT_BUILD_LOCK` when that
# variable names a lock file, so that they do not race other builds of the same folder.
cmake_minimum_required(VERSION 3.25)  # list(FILTER) on the listing (CMP0007)
string(REPLACE "," ";" spaces "${SPACES}")
string(REPLACE "," ";" expected_survivors "${SURVIVORS}")
set(lock)
if(DEFINED ENV{SCULPT_BUILD_LOCK})
  set(lock flock $ENV{SCULPT_BUILD_LOCK})
endif()

# Builds the mutant `spec` (empty: none) of `space` and runs the harness; `out` gets its exit code.
function(run_mutant out space spec)
  set(file ${MUTANTS_DIR}/${space}.mutation)
  file(READ ${file} old)
  if(NOT old STREQUAL spec)
    file(WRITE ${file} "${spec}")
  endif()
  execute_process(COMMAND ${lock} ${CMAKE_COMMAND} --build ${BUILD_DIR}
                    --target spacegen_oracle_mutant_${space}
                  RESULT_VARIABLE built OUTPUT_VARIABLE log ERROR_VARIABLE log)
  if(NOT built EQUAL 0)
    message(FATAL_ERROR "building the mutant '${spec}' of ${space} failed:\n${log}")
  endif()
  execute_process(COMMAND ${BIN_DIR}/spacegen_oracle_mutant_${space}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log)
  set(${out} ${rc} PARENT_SCOPE)
  set(mutant_log "${log}" PARENT_SCOPE)
endfunction()

set(table "space | mutants | killed | survivors\n")
set(survived FALSE)
foreach(space ${spaces})
  execute_process(COMMAND ${SPACEGEN} --list-mutants ${SPACES_DIR}/${space}.space
                  RESULT_VARIABLE rc OUTPUT_VARIABLE listing)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "spacegen --list-mutants ${space} failed")
  endif()
  string(REPLACE "\n" ";" mutants "${listing}")
  list(FILTER mutants EXCLUDE REGEX "^$")
  run_mutant(rc ${space} "")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the unmutated ${space} fails the harness:\n${mutant_log}")
  endif()
  set(killed 0)
  set(survivors)
  foreach(mutant ${mutants})
    run_mutant(rc ${space} "${mutant}")
    # Killed by a failed check, not by a crash or a build problem.
    if(NOT mutant_log MATCHES "\\[  FAILED  \\]")
      list(APPEND survivors "${mutant}")
      if(NOT "${space}:${mutant}" IN_LIST expected_survivors)
        set(survived TRUE)
      endif()
    else()
      math(EXPR killed "${killed} + 1")
    endif()
  endforeach()
  list(LENGTH mutants total)
  string(REPLACE ";" ", " survivors "${survivors}")
  message(STATUS "mutants of ${space}: ${killed} of ${total} killed")
  string(APPEND table "${space} | ${total} | ${killed} | ${survivors}\n")
endforeach()
message("${table}")
if(survived)
  message(FATAL_ERROR "mutants survive the oracle harness (not in SURVIVORS)")
endif()
