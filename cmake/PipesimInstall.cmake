# `cmake --install` layout (relocatable: nothing below names the prefix it was installed to):
#   bin/pipesim                                  the CLI
#   include/pipesim/pipesim.hpp                  the embedding API, and the module headers it
#   include/pipesim/<module>/*.hpp               reaches (and only those)
#   lib/libpipesim_<module>.a                    one static library per module
#   lib/cmake/pipesim/pipesim{Config,ConfigVersion,Targets}.cmake
#                                                find_package(pipesim): pipesim::pipesim and
#                                                pipesim::<module>
#   share/pipesim/{models,hardware,validation}/*.yaml  shipped data, found relative to bin/, and
#                                                by an embedding program at the prefix
#                                                find_package found (core/shipped_files.hpp)
#   share/pipesim/validation/ranges/prediction-ranges.yaml  the prediction ranges every
#                                                real-cost run reads (scenario/prediction_range.hpp)
#   share/pipesim/examples/                      the example sweep file(s) (examples/)
#   share/pipesim/schema/pipesim-output.schema.json  the output schema (docs/schema/)
#   share/pipesim/calibrate/                     calibration helpers: fit-profile.py and the
#                                                layer-check example (calibrate/examples/)
#   libexec/pipesim/pipesim-*-bench              the CUDA benchmarks, when built; found by
#                                                `calibrate` relative to bin/
#   lib/python3/dist-packages/pipesim.*.so       the Python module (python/CMakeLists.txt)
# Nothing installed names the build tree: every path a binary looks in is relative to itself.
include(CMakePackageConfigHelpers)

set(PIPESIM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/pipesim)
set(PIPESIM_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/pipesim)
install(EXPORT pipesimTargets NAMESPACE pipesim:: DESTINATION ${PIPESIM_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/pipesimConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/pipesimConfig.cmake
                              INSTALL_DESTINATION ${PIPESIM_INSTALL_CMAKEDIR}
                              PATH_VARS PIPESIM_INSTALL_DATADIR)
# 0.x: a minor version may break the API, so only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pipesimConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pipesimConfig.cmake
              ${PROJECT_BINARY_DIR}/pipesimConfigVersion.cmake
        DESTINATION ${PIPESIM_INSTALL_CMAKEDIR})

install(TARGETS pipesim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The headers <pipesim/pipesim.hpp> includes, transitively: "pipesim/<module>/<file>" is
# <module>/include/pipesim/<module>/<file> (core/version.hpp is generated). Everything else
# stays internal to its module.
set(pipesim_header_queue ${PROJECT_SOURCE_DIR}/pipesim/include/pipesim/pipesim.hpp)
set(pipesim_installed_headers)
while(pipesim_header_queue)
  list(POP_FRONT pipesim_header_queue pipesim_header)
  file(STRINGS ${pipesim_header} pipesim_includes REGEX "^#include \"pipesim/")
  foreach(line IN LISTS pipesim_includes)
    string(REGEX REPLACE "^#include \"(pipesim/([a-z_]+)/[^\"]+)\".*" "\\1;\\2" parts "${line}")
    list(GET parts 0 relative)
    list(GET parts 1 module)
    if(relative IN_LIST pipesim_installed_headers)
      continue()
    endif()
    list(APPEND pipesim_installed_headers ${relative})
    if(relative STREQUAL "pipesim/core/version.hpp")
      set(file ${PROJECT_BINARY_DIR}/core/include/${relative})
    else()
      set(file ${PROJECT_SOURCE_DIR}/${module}/include/${relative})
      list(APPEND pipesim_header_queue ${file})
    endif()
    get_filename_component(dir ${relative} DIRECTORY)
    install(FILES ${file} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${dir})
  endforeach()
endwhile()
install(FILES ${PROJECT_SOURCE_DIR}/pipesim/include/pipesim/pipesim.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pipesim)

foreach(folder models hardware validation)
  file(GLOB pipesim_shipped CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${folder}/*.yaml)
  install(FILES ${pipesim_shipped} DESTINATION ${PIPESIM_INSTALL_DATADIR}/${folder})
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/validation/ranges/prediction-ranges.yaml
        DESTINATION ${PIPESIM_INSTALL_DATADIR}/validation/ranges)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${PIPESIM_INSTALL_DATADIR}/examples)
install(FILES ${PROJECT_SOURCE_DIR}/docs/schema/pipesim-output.schema.json
        DESTINATION ${PIPESIM_INSTALL_DATADIR}/schema)
install(FILES ${PROJECT_SOURCE_DIR}/calibrate/examples/layer_times.csv
        DESTINATION ${PIPESIM_INSTALL_DATADIR}/calibrate)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/fit-profile.py
                 ${PROJECT_SOURCE_DIR}/calibrate/examples/make_layer_times.py
        DESTINATION ${PIPESIM_INSTALL_DATADIR}/calibrate)
foreach(bench pipesim-calibrate-bench pipesim-layer-bench)
  if(TARGET ${bench})
    install(TARGETS ${bench} RUNTIME DESTINATION ${PIPESIM_INSTALL_BENCHDIR})
  endif()
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/pipesim)
