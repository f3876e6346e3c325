# `cmake --install` layout (relocatable: nothing below names the prefix it was installed to):
#   bin/pipesim                                  the CLI
#   include/pipesim/<module>/*.hpp               public headers, <pipesim/pipesim.hpp> umbrella
#   lib/libpipesim_<module>.a                    one static library per module
#   lib/cmake/pipesim/pipesim{Config,ConfigVersion,Targets}.cmake
#                                                find_package(pipesim): pipesim::pipesim and
#                                                pipesim::<module>
#   share/pipesim/{models,hardware,validation}/*.yaml  shipped data, found relative to bin/
#                                                (core/shipped_files.hpp)
include(CMakePackageConfigHelpers)

set(PIPESIM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/pipesim)
install(EXPORT pipesimTargets NAMESPACE pipesim:: DESTINATION ${PIPESIM_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/pipesimConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/pipesimConfig.cmake
                              INSTALL_DESTINATION ${PIPESIM_INSTALL_CMAKEDIR})
# 0.x: a minor version may break the API, so only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pipesimConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pipesimConfig.cmake
              ${PROJECT_BINARY_DIR}/pipesimConfigVersion.cmake
        DESTINATION ${PIPESIM_INSTALL_CMAKEDIR})

install(TARGETS pipesim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

foreach(folder models hardware validation)
  file(GLOB pipesim_shipped CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${folder}/*.yaml)
  install(FILES ${pipesim_shipped} DESTINATION ${CMAKE_INSTALL_DATADIR}/pipesim/${folder})
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/pipesim)
