// `tessel split FILE --mode M -o DIR` (issue 13): the program with its calls split or fused
// (analysis/fission.h) or regrouped into fusion groups (analysis/regroup.h), written back in the
// language (ir/print_program.h) as DIR/FILE-M.sten.
#pragma once

#include <string>
#include <vector>

#include "analysis/fission.h"
#include "ir/program.h"

namespace tessel {

struct SplitResult {
  std::string path;                // the file written; empty after an error
  std::vector<std::string> notes;  // per call, what was split or fused, or why not
  size_t calls = 0;                // calls of the written program
  std::string error, hint;         // why nothing was written
};

/// Splits `prog` (read from `file`) as `mode` says and writes it into directory `dir` (created
/// if missing).
SplitResult writeSplit(const Program& prog, const std::string& file, FissionMode mode,
                       const std::string& dir);

/// Writes `out`, made from the program in `file` by `mode` (its name), into `dir` as
/// FILE-MODE.sten; `notes` go into the result.
SplitResult writeSplitProgram(const Program& out, const std::string& file, const std::string& mode,
                              const std::string& dir, std::vector<std::string> notes);

/// Writes `text` into directory `dir` (created if missing) as `name`: sets r.path, or r.error
/// and r.hint.
void writeProgramText(const std::string& dir, const std::string& name, const std::string& text,
                      SplitResult& r);

}  // namespace tessel
