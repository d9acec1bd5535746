// Writing JSON: every JSON document dlrmsim writes (run reports, traces, placement plans,
// validation tables, benchmark figures) is built as an nlohmann::ordered_json value, so that
// quoting and escaping are the library's, and its keys keep the order they were inserted in
// (the documented order of each report).
//
// Two choices are made here, once:
// - Numbers: a report states how many significant digits a number carries; json_number
//   rounds to them (as printf's %.*g does) and the library prints the shortest text that
//   reads back as the rounded value. A number that is not finite (an empty ratio, a rate of
//   nothing) is null, as JSON has no infinity or NaN.
// - Text that is not valid UTF-8: names come from the user's files and may hold any bytes
//   (a scenario named "\xff"). The library's default is to throw (type_error 316) while
//   writing, which would lose the whole report for one byte of one name; json_text instead
//   replaces each invalid byte sequence by U+FFFD (the Unicode replacement character), so
//   the output is always valid JSON and the rest of the name stays readable.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace dlrmsim {

/// A JSON document that keeps the insertion order of its keys.
using Json = nlohmann::ordered_json;

/// `v` rounded to `significant_digits` significant digits (at most 17, which keeps every
/// double exactly), or null when `v` is not finite.
Json json_number(double v, int significant_digits = 17);

/// `doc` as text ending in a newline: `indent` spaces per level, or one line when `indent`
/// is negative. Invalid UTF-8 in strings is replaced by U+FFFD (see above).
std::string json_text(const Json& doc, int indent = 2);

}  // namespace dlrmsim
