# Install rules and the exported package: find_package(Sprocket) gives Sprocket::sprocket.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
install(TARGETS sprocket EXPORT SprocketTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/src/ DESTINATION include/sprocket FILES_MATCHING PATTERN "*.hpp")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/impl DESTINATION include/sprocket
  FILES_MATCHING PATTERN "*.hpp" PATTERN "*.cuh")
install(EXPORT SprocketTargets NAMESPACE Sprocket:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Sprocket)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/SprocketConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/SprocketConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Sprocket)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/SprocketConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/SprocketConfig.cmake ${PROJECT_SOURCE_DIR}/cmake/SprocketKokkosTargets.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/SprocketConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Sprocket)
