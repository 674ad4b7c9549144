# `cmake --install build --prefix PREFIX` installs the library call (<sculpt/sculpt.h>) as a CMake
# package: find_package(sculpt) gives the target sculpt::sculpt. sculpt's stages are static
# libraries (isl and GMP are not position-independent in Debian, so no shared library can hold
# them); the package exports each one that sculpt::sculpt links, with their Debian dependencies.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The targets of this project that `target` links, directly or not, into `out`.
function(sculpt_link_closure target out)
  set(closure ${${out}})
  get_target_property(links ${target} INTERFACE_LINK_LIBRARIES)
  if(NOT links)
    set(links)
  endif()
  foreach(link IN LISTS links)
    # A static library's private dependencies are in its interface as $<LINK_ONLY:name>.
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" link "${link}")
    if(TARGET ${link} AND NOT link IN_LIST closure)
      get_target_property(imported ${link} IMPORTED)
      if(NOT imported)
        list(APPEND closure ${link})
        sculpt_link_closure(${link} closure)
      endif()
    endif()
  endforeach()
  set(${out} ${closure} PARENT_SCOPE)
endfunction()

set(sculpt_package_targets sculpt_library)
sculpt_link_closure(sculpt_library sculpt_package_targets)
install(TARGETS ${sculpt_package_targets} EXPORT sculptTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}/sculpt
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES explorer/executable.h explorer/sculpt.h explorer/sculpt_types.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sculpt)
install(FILES support/error.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sculpt/support)
install(EXPORT sculptTargets NAMESPACE sculpt::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/sculpt)
configure_package_config_file(cmake/sculptConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/sculptConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/sculpt)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/sculptConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/sculptConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/sculptConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/sculpt)
