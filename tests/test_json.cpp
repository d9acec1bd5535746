// Writing JSON (common/json.hpp): numbers rounded to their stated significant digits, null
// for numbers JSON cannot hold, keys in insertion order, and invalid UTF-8 replaced instead
// of failing the whole document.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "common/json.hpp"

using namespace dlrmsim;

// 1/3 at 10 significant digits is 0.3333333333 (printf's %.10g), and the library writes the
// shortest text that reads back as that double: exactly those ten 3s. At the default 17
// digits, the double reads back bit for bit.
TEST_CASE("numbers carry the stated significant digits") {
  CHECK(json_text(json_number(1.0 / 3.0, 10), -1) == "0.3333333333\n");
  CHECK(json_number(1.0 / 3.0, 10).get<double>() == 0.3333333333);
  CHECK(json_number(1.0 / 3.0).get<double>() == 1.0 / 3.0);
  CHECK(json_text(json_number(16067693.2628, 10), -1) == "16067693.26\n");
}

// Infinity and NaN have no JSON form; a report writes null for them (a rate of nothing).
TEST_CASE("a number that is not finite is null") {
  CHECK(json_number(std::numeric_limits<double>::infinity()).is_null());
  CHECK(json_number(-std::numeric_limits<double>::infinity(), 4).is_null());
  CHECK(json_number(std::nan("")).is_null());
}

// Keys keep the order they were inserted in ("z" before "a"), so a report reads in its
// documented order; indentation 2 puts each key on its own line; a negative indentation
// writes one line. Both end in a newline.
TEST_CASE("keys keep their insertion order") {
  Json doc;
  doc["z"] = 1;
  doc["a"] = "x";
  CHECK(json_text(doc) == "{\n  \"z\": 1,\n  \"a\": \"x\"\n}\n");
  CHECK(json_text(doc, -1) == "{\"z\":1,\"a\":\"x\"}\n");
}

// A name from a user's file with the byte 0xff (never valid in UTF-8): the library's default
// would throw type_error 316 and lose the document; json_text replaces the byte by U+FFFD
// (EF BF BD) and keeps the rest. Quotes, backslashes and control characters are escaped.
// The text parses back.
TEST_CASE("invalid UTF-8 is replaced, special characters escaped") {
  Json doc;
  doc["name"] = "scen\xffrio \"q\" \\ \n\x01";
  const std::string text = json_text(doc, -1);
  CHECK(text == "{\"name\":\"scen\xEF\xBF\xBDrio \\\"q\\\" \\\\ \\n\\u0001\"}\n");
  CHECK(Json::parse(text)["name"] == "scen\xEF\xBF\xBDrio \"q\" \\ \n\x01");
  CHECK_THROWS_AS((void)doc.dump(), nlohmann::json::type_error);  // the default this replaces
}
