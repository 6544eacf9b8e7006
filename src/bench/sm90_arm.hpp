#pragma once
#include <memory>
#include <string>

#include "bench/arm.hpp"

namespace tilewise::bench {

// "sm90" (first shape rule) or "sm90:<config fields separated by ';'>"; throws Error on a bad configuration.
std::unique_ptr<Arm> make_sm90_arm(const std::string& name);

}  // namespace tilewise::bench
