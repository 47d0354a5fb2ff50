// `tessel emit`: write generated code for a target into a directory.
#pragma once

#include <string>
#include <vector>

#include "ir/program.h"
#include "lower/lower_gpu.h"
#include "schedule/resolve.h"
#include "support/pass_log.h"

namespace tessel {

/// Names accepted by `emit --target`: cpp, cuda, opencl.
const std::vector<std::string>& emitTargets();

struct EmitOptions {
  std::string target = "cpp";
  std::string directory;
  /// The resolved schedule (schedule/resolve.h) of cuda, opencl, and cpp when a stencil's
  /// family is not `global`; unset (no grids): every stencil `global`.
  ResolvedSchedule schedule;
  std::string cudaArch = "sm_90";  // cuda: the CMakeLists' default architecture
  PassLog* passLog = nullptr;      // the pipeline's pass log; null: a silent one
  /// The command line that asked for it (`tessel emit ...`, quoted for a shell): written under
  /// the sources' "Do not edit; regenerate." line (not into the OpenCL kernel file, which the
  /// host file embeds as it is). Empty: none.
  std::string commandLine;
};

/// What `emit --target target -o dir` would meet in `dir`: the files it writes that are there
/// and were not written by Tessel (their first line lacks its mark), which it must not
/// overwrite; and the files an earlier emit for another target left, which it leaves (the
/// CMakeLists.txt it writes builds its own files only).
struct EmitDirectory {
  std::vector<std::string> foreign;       // would be overwritten: not Tessel's
  std::vector<std::string> otherTargets;  // Tessel's, of another target
};
EmitDirectory inspectEmitDirectory(const std::string& target, const std::string& directory);

/// A path as a POSIX shell reads it back: as is where it has no character the shell treats
/// specially, else in single quotes.
std::string shellQuoted(const std::string& path);

/// Writes the target's files into `opts.directory` (created if needed); returns a
/// human-readable summary of what was written and how to build it. Throws std::runtime_error
/// on I/O failure.
std::string emitProgram(const Program& prog, const EmitOptions& opts);

}  // namespace tessel
