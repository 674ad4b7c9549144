# sculpt_add_space(<target> FILES <root.space> [included.space ...] NAMESPACE <ns>
#                  BACKBONE_TYPE "<C++ type of $fun>" [NEW_OBJS_TYPE "<type of $new>"]
#                  [HEADERS <headers the host code needs> ...]
#                  [SPACEGEN_ARGS <more spacegen options> ...] [DEPENDS <files they read> ...])
# Runs spacegen on the root file at build time (the other files are its includes, listed as
# dependencies; those FILES omits are found too) into
# ${CMAKE_CURRENT_BINARY_DIR}/generated/<target>/ and builds the library <target>. Users include
# "generated/<target>/space.h". A bad .space file fails the build with located diagnostics.
# The propagators of each file's constraints go to a source of their own
# (propagators_<stem>.cpp): the files of a space have distinct stems.
# Generated sources are formatted as the project's own (its width, its style) when clang-format
# is found.
find_program(SCULPT_CLANG_FORMAT clang-format)
set(SCULPT_FORMAT_STYLE ${CMAKE_CURRENT_LIST_DIR}/../.clang-format)

# The root file and every file it includes, transitively (`include "path"`, relative to the
# including file, as spacedsl reads them), as absolute paths in `out`.
function(sculpt_space_files root out)
  set(todo ${root})
  set(seen)
  while(todo)
    list(POP_FRONT todo file)
    if(file IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${file})
    file(STRINGS ${file} includes REGEX "^[ \t]*include[ \t]+\"[^\"]+\"")
    get_filename_component(dir ${file} DIRECTORY)
    foreach(line ${includes})
      string(REGEX REPLACE "^[ \t]*include[ \t]+\"([^\"]+)\".*" "\\1" path "${line}")
      get_filename_component(path ${path} ABSOLUTE BASE_DIR ${dir})
      list(APPEND todo ${path})
    endforeach()
  endwhile()
  set(${out} ${seen} PARENT_SCOPE)
endfunction()

function(sculpt_add_space target)
  cmake_parse_arguments(S "" "NAMESPACE;BACKBONE_TYPE;NEW_OBJS_TYPE"
    "FILES;HEADERS;SPACEGEN_ARGS;DEPENDS" ${ARGN})
  if(NOT S_FILES OR NOT S_NAMESPACE OR NOT S_BACKBONE_TYPE)
    message(FATAL_ERROR "sculpt_add_space(${target}) needs FILES, NAMESPACE and BACKBONE_TYPE")
  endif()
  if(NOT TARGET spacegen)
    message(FATAL_ERROR "sculpt_add_space(${target}) needs the spacegen tool (spacedsl missing?)")
  endif()
  set(sources)
  foreach(file ${S_FILES})
    get_filename_component(abs ${file} ABSOLUTE)
    list(APPEND sources ${abs})
  endforeach()
  list(GET sources 0 root_abs)
  # Relative to the source folder, so that locations in generated code and conflicts are short.
  file(RELATIVE_PATH root ${CMAKE_CURRENT_SOURCE_DIR} ${root_abs})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/generated/${target})
  set(headers ${out}/domains.h ${out}/space.h)
  # As spacegen's generated_file_names(): one propagators_<stem>.cpp per .space file of the
  # space, which FILES may not all list; an include added to a file configures again.
  sculpt_space_files(${root_abs} space_files)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${space_files})
  set(cpp ${out}/decision_vector.cpp ${out}/quotients.cpp ${out}/counters.cpp ${out}/triggers.cpp)
  foreach(file ${space_files})
    get_filename_component(stem ${file} NAME_WLE)
    list(APPEND cpp ${out}/propagators_${stem}.cpp)
  endforeach()
  set(args ${S_SPACEGEN_ARGS})
  foreach(header ${S_HEADERS})
    list(APPEND args --header ${header})
  endforeach()
  if(S_NEW_OBJS_TYPE)
    list(APPEND args --new-objs-type ${S_NEW_OBJS_TYPE})
  endif()
  set(style_file)
  if(SCULPT_CLANG_FORMAT)
    list(APPEND args --format-with ${SCULPT_CLANG_FORMAT} --format-style ${SCULPT_FORMAT_STYLE})
    set(style_file ${SCULPT_FORMAT_STYLE})
  endif()
  add_custom_command(
    OUTPUT ${headers} ${cpp}
    COMMAND spacegen ${root} --out ${out} --namespace ${S_NAMESPACE}
            --backbone-type ${S_BACKBONE_TYPE} ${args}
    DEPENDS ${sources} ${space_files} ${S_DEPENDS} ${style_file} spacegen
    WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
    COMMENT "spacegen ${target}"
    VERBATIM)
  add_library(${target} ${cpp} ${headers})
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_BINARY_DIR}>)
  target_link_libraries(${target} PUBLIC sculpt_spacegen_runtime)
endfunction()
