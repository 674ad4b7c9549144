# Every dependency comes from a Debian package installed by setup.sh.
# Boost: Spirit X3 (the parsers), header-only.
find_package(Boost 1.74 REQUIRED)
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(GTest REQUIRED)
find_package(Threads REQUIRED)
find_package(TBB REQUIRED)
if(SCULPT_BENCH)
  find_package(benchmark REQUIRED)
endif()

# isl and GMP link statically so that binaries carry no isl/gmp runtime dependency. Debian's
# static isl and GMP are not position-independent: a shared object (the Python module) that
# sets its SCULPT_SHARED_ISL property links their shared libraries instead.
find_package(PkgConfig REQUIRED)
pkg_check_modules(ISL REQUIRED isl)
find_library(ISL_STATIC_LIBRARY NAMES libisl.a REQUIRED)
find_library(GMP_STATIC_LIBRARY NAMES libgmp.a REQUIRED)
find_library(ISL_SHARED_LIBRARY NAMES libisl.so REQUIRED)
find_library(GMP_SHARED_LIBRARY NAMES libgmp.so REQUIRED)
add_library(sculpt_isl INTERFACE)
target_include_directories(sculpt_isl SYSTEM INTERFACE ${ISL_INCLUDE_DIRS})
set(sculpt_shared_isl "$<BOOL:$<TARGET_PROPERTY:SCULPT_SHARED_ISL>>")
target_link_libraries(sculpt_isl INTERFACE
  "$<IF:${sculpt_shared_isl},${ISL_SHARED_LIBRARY},${ISL_STATIC_LIBRARY}>"
  "$<IF:${sculpt_shared_isl},${GMP_SHARED_LIBRARY},${GMP_STATIC_LIBRARY}>")

# Executables that propagate (the CLI, the benchmarks) link jemalloc, which then serves every
# malloc of the process: lowerings copy kernels and each decision clones a candidate, and
# glibc's allocator made descents 6-10% slower. Sanitizer builds keep their own allocator.
pkg_check_modules(JEMALLOC REQUIRED IMPORTED_TARGET jemalloc)
add_library(sculpt_allocator INTERFACE)
if(NOT SCULPT_SANITIZE)
  target_link_libraries(sculpt_allocator INTERFACE PkgConfig::JEMALLOC)
endif()

# The CUDA driver API header is used where the toolkit is installed; libcuda itself is
# loaded with dlopen at run time, so nothing links against it.
find_path(CUDA_DRIVER_INCLUDE_DIR cuda.h
  HINTS /usr/local/cuda/include ENV CUDA_HOME PATH_SUFFIXES include)

# MPI (Open MPI: libopenmpi-dev, openmpi-bin), optional: with it a search can spread its
# evaluations over the ranks of an MPI job (distributed/); without it, sculpt refuses an mpirun
# launch with a message. Its C API, from C++: without the old C++ bindings, which need a library
# of their own.
set(MPI_CXX_SKIP_MPICXX ON)
find_package(MPI COMPONENTS CXX)

# Python and pybind11 (python3-dev, pybind11-dev), optional: with both, python/ builds the
# module `sculpt`; its tests also need NumPy and pytest (python3-numpy, python3-pytest).
# Debian's interpreter, for which those packages install, before any other on the PATH.
if(NOT Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3)
endif()
find_package(Python3 COMPONENTS Interpreter Development.Module)
if(Python3_FOUND)
  find_package(pybind11 CONFIG)
endif()
