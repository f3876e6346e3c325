# Warnings and sanitizers live in one interface target that every pipesim target links.
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

# pipesim_add_library(<name> SOURCES ... DEPS ...): a module library pipesim_<name>, aliased
# pipesim::<name>, whose public headers live in <name>/include/pipesim/<name>/.
function(pipesim_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(pipesim_${name} STATIC ${ARG_SOURCES})
  add_library(pipesim::${name} ALIAS pipesim_${name})
  target_include_directories(pipesim_${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_link_libraries(pipesim_${name} PUBLIC ${ARG_DEPS} PRIVATE pipesim::options)
endfunction()

# pipesim_add_test(<name> SOURCES ... DEPS ...): one GoogleTest executable registered with ctest.
function(pipesim_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest_main pipesim::options)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60
                       PROPERTIES ENVIRONMENT "PIPESIM_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
endfunction()
