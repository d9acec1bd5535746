# Registers every doctest test case of TEST_EXECUTABLE as one ctest test, run after each build
# by doctest_discover_tests (tests/CMakeLists.txt points it here). It takes the place of
# doctest's own doctestAddTests.cmake (doctest 2.4), which reads the listing as a CMake list:
# a test case whose name holds a semicolon became two ctest tests whose filters matched no
# test case, so they passed without running it. Here a semicolon stays in the ctest name, and
# the filter matches it with `?` (any one character); commas, which separate doctest's
# filter patterns, are escaped. Inputs, as doctest_discover_tests passes them: TEST_EXECUTABLE,
# TEST_EXECUTOR, TEST_WORKING_DIR, TEST_SPEC, TEST_EXTRA_ARGS, TEST_PROPERTIES, TEST_PREFIX,
# TEST_SUFFIX, TEST_LIST, CTEST_FILE (TEST_ADD_LABELS and TEST_JUNIT_OUTPUT_DIR are not used
# by this project and are refused).
if(TEST_ADD_LABELS OR TEST_JUNIT_OUTPUT_DIR)
  message(FATAL_ERROR "doctest_add_tests.cmake: ADD_LABELS and JUNIT_OUTPUT_DIR are not supported")
endif()
if(NOT EXISTS "${TEST_EXECUTABLE}")
  message(FATAL_ERROR "Specified test executable '${TEST_EXECUTABLE}' does not exist")
endif()
set(spec "")
if(TEST_SPEC)
  set(spec "--test-case=${TEST_SPEC}")
endif()
execute_process(COMMAND ${TEST_EXECUTOR} "${TEST_EXECUTABLE}" ${spec} --list-test-cases
                OUTPUT_VARIABLE output RESULT_VARIABLE result WORKING_DIRECTORY "${TEST_WORKING_DIR}")
if(NOT result EQUAL 0)
  message(FATAL_ERROR "Error running test executable '${TEST_EXECUTABLE}':\n  Result: ${result}\n  Output: ${output}\n")
endif()

# A bracket argument: the text exactly, whatever it holds.
function(bracket out text)
  set(${out} "[==[${text}]==]" PARENT_SCOPE)
endfunction()

# The semicolons of names become a placeholder while the listing is split into lines.
string(REPLACE ";" "<semicolon>" output "${output}")
string(REPLACE "\n" ";" lines "${output}")
set(extra "")
foreach(arg IN LISTS TEST_EXTRA_ARGS)
  bracket(arg "${arg}")
  string(APPEND extra " ${arg}")
endforeach()
set(properties "")
list(LENGTH TEST_PROPERTIES count)  # name, value, name, value ...; a value may be empty
if(count GREATER 0)
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    list(GET TEST_PROPERTIES ${i} item)
    bracket(item "${item}")
    string(APPEND properties " ${item}")
  endforeach()
  # cmake_parse_arguments drops an empty last value (ENVIRONMENT "" without sanitizers).
  math(EXPR odd "${count} % 2")
  if(odd)
    string(APPEND properties " [==[]==]")
  endif()
endif()
set(script "")
set(names "")
foreach(line IN LISTS lines)
  if(line STREQUAL "" OR line MATCHES "^=+$" OR line MATCHES "^\\[doctest\\] ")
    continue()
  endif()
  string(REPLACE "," "\\," filter "${line}")
  string(REPLACE "<semicolon>" "?" filter "${filter}")
  string(REPLACE "<semicolon>" ";" name "${TEST_PREFIX}${line}${TEST_SUFFIX}")
  bracket(name "${name}")
  bracket(command "${TEST_EXECUTABLE}")
  bracket(filter "--test-case=${filter}")
  bracket(directory "${TEST_WORKING_DIR}")
  string(APPEND script "add_test(${name} ${TEST_EXECUTOR} ${command} ${filter}${extra})\n")
  string(APPEND script "set_tests_properties(${name} PROPERTIES WORKING_DIRECTORY ${directory}${properties})\n")
  string(APPEND names " ${name}")
endforeach()
string(APPEND script "set(${TEST_LIST}${names})\n")
file(WRITE "${CTEST_FILE}" "${script}")
