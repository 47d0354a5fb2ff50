// Errors raised while running a program (reference interpreter, generated code, data files).
#pragma once

#include <stdexcept>
#include <string>

namespace tessel {

/// A run-time error of the program being run (by the reference interpreter or as generated
/// code): integer division by zero, a negative integer power, an access outside an array,
/// parameter or data values that do not fit. The message is complete and user-facing.
struct RuntimeError : std::runtime_error {
  explicit RuntimeError(const std::string& msg) : std::runtime_error(msg) {}
};

/// The machine lacks something a backend needs (a compiler, a device): not a bug in Tessel.
struct EnvironmentError : std::runtime_error {
  explicit EnvironmentError(const std::string& msg) : std::runtime_error(msg) {}
};

}  // namespace tessel
