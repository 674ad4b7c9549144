# Writes OUTPUT, a C++ source whose function NAMESPACE::FUNCTION() (declared in HEADER) returns
# the text of INPUT, so that a binary carries the file and needs no source tree:
#   cmake -DINPUT=... -DOUTPUT=... -DHEADER=... -DNAMESPACE=... -DFUNCTION=... -P EmbedText.cmake
file(READ ${INPUT} text)
string(FIND "${text}" ")embedded\"" delimiter)
if(NOT delimiter EQUAL -1)
  message(FATAL_ERROR "${INPUT} holds ')embedded\"', which ends the raw string embedding it")
endif()
file(WRITE ${OUTPUT} "// Generated from ${INPUT} by cmake/EmbedText.cmake.
#include \"${HEADER}\"

namespace ${NAMESPACE} {

std::string_view ${FUNCTION}() {
  return R\"embedded(${text})embedded\";
}

}  // namespace ${NAMESPACE}
")
