// <regex> for the tests. GCC 12's std::regex, built with -O2 and AddressSanitizer, warns that
// a std::function inside the compiled automaton "may be used uninitialized" (a false positive
// of GCC 12, gcc.gnu.org bug 105562), which -Werror turns into a failed sanitizer build.
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <regex>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
