// `tessel resources`: the program's CUDA compiled by nvcc, and what ptxas reports per kernel.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "exec/cuda_resources.h"
#include "ir/program.h"
#include "lower/lower_gpu.h"

namespace tessel {

struct ResourcesResult {
  CudaResourceReport report;
  std::vector<GpuKernelInfo> kernels;  // what each kernel computes, by launch id
  std::vector<std::string> notes;      // the lowering's and the schedule's notes
};

/// What nvcc compiles: the whole program, host code with warnings too (`tessel resources`), or
/// only the kernels (`-cubin`: the kernel reports of info and analyze, and the predictions of
/// the register cap, which need ptxas's figures and nothing of the host code).
enum class ResourcesBuild { WholeProgram, KernelsOnly };

/// Generates the CUDA code of `prog` under its resolved schedule and compiles it for `arch` with
/// nvcc (`-Xptxas -v`), reusing a cached report for the same source and command. Throws
/// EnvironmentError without nvcc, std::runtime_error when the compilation fails.
ResourcesResult programResources(const Program& prog, const ResolvedSchedule& resolved,
                                 const std::string& arch,
                                 ResourcesBuild build = ResourcesBuild::WholeProgram);

/// A table: one row per kernel (registers, shared, local/stack, spills, barriers), then nvcc's
/// warnings if any, the command, and the notes.
std::string resourcesText(const ResourcesResult& r);
nlohmann::json resourcesJson(const ResourcesResult& r);

}  // namespace tessel
