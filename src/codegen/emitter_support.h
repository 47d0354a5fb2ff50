// What the CLikeEmitter (emitter.h) shares with nothing else: the layout of generated lines
// (100 columns, comments word-wrapped, long statements broken before an operator) and the
// run-time helpers of generated code (integer power, non-trapping division and remainder, and
// tessel_fail, which records a run-time error in the error status the dialect spells).
#pragma once

#include <cstddef>
#include <string>

#include "codegen/dialect.h"

namespace tessel::emit {

inline constexpr size_t kLineLimit = 100;

/// Word-wraps comment text: each line of `text` becomes one or more `pad + prefix + words` lines
/// (wrapped at kLineLimit when `wrapWords`), appended to `out`.
void addLines(const std::string& text, const std::string& pad, const std::string& prefix,
              std::string& out, bool wrapWords = false);

/// `source` with `// Written by: COMMAND` under its header's "Do not edit; regenerate." line
/// (`tessel emit`'s command line); as it is where `command` is empty or spans lines.
std::string withWrittenBy(std::string source, const std::string& command);

/// Breaks a long line of code before a binary operator (or after a comma) outside subscripts,
/// preferring the shallowest parenthesis depth; continuation lines are indented four more.
std::string breakCode(std::string line, const std::string& pad);

/// The helpers a printed module calls (the first three also need tessel_fail): integer power,
/// division and remainder, and a float or double converted to a language int.
enum Helper : unsigned { kIpow = 1, kIdiv = 2, kImod = 4, kToIntF = 8, kToIntD = 16 };
inline constexpr unsigned kFallibleHelpers = kIpow | kIdiv | kImod;

/// What goes at the top of a file before its functions: the error status's file-scope definition
/// (when the dialect keeps it at file scope and the code uses it), tessel_fail and the helpers.
std::string helperDefinitions(const Dialect& d, unsigned helpers, bool usesStatus);

}  // namespace tessel::emit
