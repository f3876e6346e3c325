include(GNUInstallDirs)

# Where `cmake --install` puts the CUDA calibration benchmarks (PipesimInstall.cmake); the CLI
# finds them relative to its own bin/ (tools/CMakeLists.txt).
set(PIPESIM_INSTALL_BENCHDIR ${CMAKE_INSTALL_LIBEXECDIR}/pipesim)

# Warnings and sanitizers live in one interface target that every pipesim target links. It is a
# build-time concern: libraries link it PRIVATE through $<BUILD_INTERFACE>, so it never reaches
# the installed export set or a consumer's flags.
add_library(pipesim_options INTERFACE)
add_library(pipesim::options ALIAS pipesim_options)
target_compile_options(pipesim_options INTERFACE -Wall -Wextra -Wpedantic -Wshadow
                                                 -Wconversion -Wno-sign-conversion)
if(PIPESIM_WERROR)
  target_compile_options(pipesim_options INTERFACE -Werror)
endif()
if(PIPESIM_SANITIZE)
  target_compile_options(pipesim_options INTERFACE -fsanitize=address,undefined
                                                   -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(pipesim_options INTERFACE -fsanitize=address,undefined)
endif()
# The libFuzzer harnesses (tests/fuzz/) link the same libraries as the tests, so one sanitized
# clang build serves both: the module libraries get libFuzzer's coverage instrumentation
# (pipesim_add_library), which the sanitizer runtime satisfies in the test executables too. The
# tests' own code is not instrumented: nothing fuzzes it, and it is most of what is compiled.
if(PIPESIM_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang" OR NOT PIPESIM_SANITIZE)
    message(FATAL_ERROR "PIPESIM_BUILD_FUZZERS needs clang and PIPESIM_SANITIZE=ON "
                        "(the asan preset sets both)")
  endif()
endif()

# pipesim_add_library(<name> SOURCES ... DEPS ...): a module library pipesim_<name>, aliased
# pipesim::<name>, whose public headers live in <name>/include/pipesim/<name>/. It is installed
# into the export set pipesimTargets, where consumers see it as
# pipesim::<name>, and joins the umbrella target pipesim::pipesim; of its headers, those the
# umbrella header reaches are installed (cmake/PipesimInstall.cmake).
# DEPS are PUBLIC and exported: a third-party one must also be found by
# cmake/pipesimConfig.cmake.in, a pipesim one must itself be made by pipesim_add_library.
function(pipesim_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(pipesim_${name} STATIC ${ARG_SOURCES})
  add_library(pipesim::${name} ALIAS pipesim_${name})
  set_target_properties(pipesim_${name} PROPERTIES EXPORT_NAME ${name})
  target_compile_features(pipesim_${name} PUBLIC cxx_std_20)
  target_include_directories(pipesim_${name} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(pipesim_${name} PUBLIC ${ARG_DEPS}
                                        PRIVATE $<BUILD_INTERFACE:pipesim::options>)
  if(PIPESIM_BUILD_FUZZERS)
    target_compile_options(pipesim_${name} PRIVATE -fsanitize=fuzzer-no-link)
  endif()
  install(TARGETS pipesim_${name} EXPORT pipesimTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  set_property(GLOBAL APPEND PROPERTY PIPESIM_MODULES pipesim_${name})
endfunction()

# pipesim_add_test(<module> SOURCES ... DEPS ... [WHOLE_SUITES suite ...]): the GoogleTest
# executable <module>_test, its tests registered with ctest as `<module>.<Suite>.<Test>`
# (`ctest -R '^sim\.'` runs one module's). A suite in WHOLE_SUITES is one ctest entry instead,
# `<module>.<Suite>`, all its tests in one process: its tests share one costly fixture (the
# validation suite's predictions), which a process per test would compute once each. Every
# test executable gets the source tree as PIPESIM_TEST_SOURCE_DIR. No precompiled header: g++ 12
# loses the system-header status of libstdc++ inside one and then reports its -Warray-bounds
# false positives as errors. The tests' own code is glue around the libraries, which are built
# as they ship, so it is compiled for its compile time: -O1 in a Release build (-O3 tripled it
# and bought nothing the tests measure; speed is the benchmarks', built at -O3), -O0 under the
# sanitizers (clang's -O1 with ASan and UBSan took 1.6x as long per test file; the libraries keep
# the preset's -O1).
function(pipesim_add_test module)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;WHOLE_SUITES" ${ARGN})
  set(name ${module}_test)
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest_main pipesim::options)
  if(PIPESIM_SANITIZE)
    target_compile_options(${name} PRIVATE -O0)
  else()
    target_compile_options(${name} PRIVATE $<$<CONFIG:Release>:-O1>)
  endif()
  target_compile_definitions(${name} PRIVATE PIPESIM_TEST_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  set(environment "PIPESIM_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
  set(filter "")
  foreach(suite ${ARG_WHOLE_SUITES})
    list(APPEND filter "${suite}.*")
    add_test(NAME ${module}.${suite} COMMAND ${name} --gtest_filter=${suite}.*)
    set_tests_properties(${module}.${suite} PROPERTIES ENVIRONMENT "${environment}" TIMEOUT 1500)
  endforeach()
  if(filter)
    list(JOIN filter ":" filter)
    set(filter "-${filter}")
  endif()
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 TEST_PREFIX "${module}." TEST_FILTER "${filter}"
                       PROPERTIES ENVIRONMENT "${environment}")
endfunction()
