#pragma once
// Bad input must fail with a message that names the problem; these helpers read that message.
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"

namespace tilewise::testkit {

// The message of the Error `f` throws, or a test failure and "" when it throws none.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a tilewise::Error";
  return "";
}

inline ::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

}  // namespace tilewise::testkit
