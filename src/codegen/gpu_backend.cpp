#include "codegen/gpu_backend.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "codegen/cpp_backend.h"
#include "codegen/dialect.h"
#include "codegen/emitter.h"
#include "ir/loop_ir.h"
#include "lower/lower.h"
#include "lower/lower_cpp.h"

namespace fs = std::filesystem;

namespace tessel {

std::vector<std::string> openclHostCompileFlags() {
  return {"-std=c++17", "-O2", "-ffp-contract=off", "-fwrapv", "-fPIC", "-shared"};
}

std::vector<std::string> cpuTiledCompileFlags() { return cppCompileFlags(); }

std::vector<std::string> cudaCompileFlags(const std::string& arch) {
  return {"-std=c++17",  "-O3",        "-arch=" + arch,
          "-fmad=false", "-Xcompiler", "-fPIC,-ffp-contract=off,-fwrapv",
          "-shared"};
}

namespace {

std::string programName(const Program& prog) {
  return prog.file ? fs::path(prog.file->name()).filename().string()
                   : "(a program built in memory)";
}

/// One stencil's schedule as the files' first line gives it.
std::string gridText(const GridShape& g) {
  std::vector<std::string> block;
  for (size_t d = 0; d < std::max<size_t>(1, g.iters.size()) && d < 3; ++d)
    block.push_back(std::to_string(g.block[d]));
  std::string t = fmt::format("schedule {}, block {}", familyName(g.family), fmt::join(block, "x"));
  if (g.family == ScheduleFamily::Stream)
    t += g.chunk == 0 ? ", serial" : fmt::format(", chunk {}", g.chunk);
  if (g.timeTile > 1 || g.family == ScheduleFamily::Overlapped)
    t += fmt::format(", time_tile {}", g.timeTile);
  if (g.unroll != std::array<int, 3>{1, 1, 1})
    t += fmt::format(", unroll {}{}", fmt::join(g.unroll, "x"), g.cyclic ? " cyclic" : "");
  for (const auto& [on, name] : {std::pair{g.fuseStatements, "fuse_statements"},
                                 {g.retime, "retime"},
                                 {g.prefetch, "prefetch"},
                                 {g.fold, "fold"},
                                 {g.registerValues, "register values"},
                                 {g.fma, "fma"}})
    if (on) t += std::string(", ") + name;
  if (g.maxRegisters > 0) t += fmt::format(", max_registers {}", g.maxRegisters);
  return t;
}

/// The stencils' schedules: one text where they agree, else each stencil's by name.
std::string scheduleText(const Program& prog, const ResolvedSchedule& resolved,
                         const GpuSources& s) {
  if (s.kernels.empty()) return "no kernels";
  std::vector<std::string> each;
  std::set<std::string> distinct;
  for (size_t st = 0; st < prog.stencils.size() && st < resolved.grids.size(); ++st) {
    const std::string t = gridText(resolved.grids[st]);
    each.push_back(prog.stencils[st].name + ": " + t);
    distinct.insert(t);
  }
  if (distinct.size() == 1) return *distinct.begin();
  return fmt::format("schedules per stencil: {}", fmt::join(each, "; "));
}

/// The first line of the kernel list in the files' comments.
const char* const kKernelListHeading =
    "Kernels, one per statement or fused group (the host code launches them as the call "
    "sequence runs):";

/// The interface lines shared by the host files' comments (`api`: the status codes it returns).
std::vector<std::string> interfaceLines(const Program& prog, GpuApi api) {
  std::vector<std::string> h = {
      "C interface (gpu_host_runtime.h in Tessel): tessel_gpu_open(device, &gpu, message, size),",
      "tessel_gpu_run(gpu, arrays, scalars, params, &kernel_seconds, message, size),",
      "tessel_gpu_device(gpu), tessel_gpu_close(gpu), and tessel_entry(arrays, scalars, params):",
  };
  for (size_t a = 0; a < prog.arrays.size(); ++a) {
    std::string ext;
    for (auto& e : prog.arrays[a].extents) ext += "[" + toString(e, {}) + "]";
    h.push_back(fmt::format("  arrays[{}]  = {}{}: {}, row-major", a, prog.arrays[a].name, ext,
                            typeName(prog.arrays[a].type)));
  }
  for (size_t s = 0; s < prog.scalars.size(); ++s)
    h.push_back(fmt::format("  scalars[{}] = {} ({}, passed as a double)", s, prog.scalars[s].name,
                            typeName(prog.scalars[s].type)));
  for (size_t p = 0; p < prog.params.size(); ++p)
    h.push_back(fmt::format("  params[{}]  = {}", p, prog.params[p].name));
  h.push_back("Status: 0; a run-time error of the program:");
  for (lir::Status st : {lir::Status::IntDivisionByZero, lir::Status::NegativeExponent,
                         lir::Status::IntRemainderByZero})
    h.push_back(
        fmt::format("  {}  {}", static_cast<int>(st), lir::statusMessage(static_cast<int>(st))));
  h.push_back("  (nothing traps: the arrays then hold unspecified values); or");
  if (api == GpuApi::Cpu) {
    h.push_back(fmt::format("  {}  a host allocation failed (the message names it)", kGpuApiError));
  } else {
    h.push_back(
        fmt::format("  {}  a call of the GPU API failed (the message names it)", kGpuApiError));
    h.push_back(fmt::format("  {}  no device", kGpuNoDevice));
  }
  h.push_back(
      fmt::format("  {}  the run cannot go as generated (the message says why):", kGpuDeviceLimit));
  if (api == GpuApi::OpenCL)
    h.push_back("       a block larger than the device takes, or less local memory than the");
  if (api == GpuApi::OpenCL) h.push_back("       schedule assumed;");
  if (api == GpuApi::Cuda) h.push_back("       a grid of more blocks than CUDA launches;");
  h.push_back("       sizes that need 64-bit indices in kernels made with --index-bits 32");
  h.push_back("Copy-out: the copyout arrays (or, without a copyout list, every array a call");
  h.push_back("writes); the other arrays on the host are left as they were.");
  return h;
}

std::string commentBlock(const std::vector<std::string>& lines) {
  std::string out;
  for (auto& l : lines) out += l.empty() ? "//\n" : "// " + l + "\n";
  return out + "\n";
}

std::string kernelList(const GpuSources& s) {
  std::string out;
  for (auto& k : s.kernels) out += (out.empty() ? "" : ", ") + k.name;
  if (s.launchNames.size() > s.kernels.size())
    out += fmt::format(
        "; {} of them also as a 64-bit copy (NAME_i64), launched when the sizes "
        "of a run need 64-bit indices",
        s.launchNames.size() - s.kernels.size());
  return out.empty() ? "(none: no statement runs)" : out;
}

std::string nameTable(const GpuSources& s) {
  std::string out = fmt::format("[[maybe_unused]] static const int kTesselKernelCount = {};\n",
                                s.launchNames.size());
  out += "[[maybe_unused]] static const char* const kTesselKernelNames[] = {\n";
  for (auto& k : s.launchNames) out += "    \"" + k + "\",\n";
  return out + "    nullptr};\n";
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (auto& x : v) out += (out.empty() ? "" : " ") + x;
  return out;
}

void generateOpencl(const Program& prog, const GpuProgram& gp, GpuSources& s) {
  lir::Module device = gp.device;
  device.header = {
      fmt::format("Generated by Tessel from {} (OpenCL kernels; {}).", programName(prog),
                  s.schedule),
      "Do not edit; regenerate.",
      "",
      fmt::format("OpenCL C 1.2, built at run time by {} (which embeds this text) with",
                  kOpenclHostName),
      fmt::format("  {}", kOpenclBuildOptions),
      kKernelListHeading,
      "  " + kernelList(s),
      "Every kernel's last argument is the device error status (0, or the first run-time error).",
  };
  s.kernelSource = CLikeEmitter(openclDialect()).emitModule(device);

  GpuHostRuntime rt = gpuHostRuntime(GpuApi::OpenCL);
  std::vector<std::string> head = {
      fmt::format("Generated by Tessel from {} (OpenCL backend: host code; {}).", programName(prog),
                  s.schedule),
      "Do not edit; regenerate.",
      "",
      fmt::format("Allocates device buffers, copies data, launches the kernels of {} (embedded",
                  kOpenclKernelName),
      "below as kTesselKernelSource), times them with profiling events.",
      "Build standalone (the tessel runtime does the same, then loads it with dlopen):",
      fmt::format("  c++ {} {} -lOpenCL -o {}", joined(openclHostCompileFlags()), kOpenclHostName,
                  kGpuLibraryName),
      "or with the CMakeLists.txt written next to this file.",
      "",
  };
  for (auto& l : interfaceLines(prog, GpuApi::OpenCL)) head.push_back(l);
  std::string tables = fmt::format(
      "// The kernels ({}), built when the device is opened.\n"
      "static const char kTesselKernelSource[] = R\"TESSELCL(\n{})TESSELCL\";\n"
      "static const char kTesselBuildOptions[] = \"{}\";\n{}\n",
      kOpenclKernelName, s.kernelSource, kOpenclBuildOptions, nameTable(s));
  s.hostSource = commentBlock(head) + rt.includes + "\n" + tables + rt.definitions + "\n" +
                 CLikeEmitter(gpuHostDialect()).emitModule(gp.host) + "\n" + rt.entry;
  s.cmakeLists = fmt::format(
      "# Builds the generated Tessel program ({}, OpenCL) as the shared library the tessel\n"
      "# runtime loads: cmake -S . -B build && cmake --build build\n"
      "cmake_minimum_required(VERSION 3.16)\n"
      "project(tessel_program LANGUAGES CXX)\n"
      "find_package(OpenCL REQUIRED)\n"
      "add_library(tessel_program SHARED {})\n"
      "set_target_properties(tessel_program PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON\n"
      "                      CXX_EXTENSIONS OFF POSITION_INDEPENDENT_CODE ON)\n"
      "target_compile_options(tessel_program PRIVATE -O2 -ffp-contract=off -fwrapv)\n"
      "target_link_libraries(tessel_program PRIVATE OpenCL::OpenCL)\n",
      programName(prog), kOpenclHostName);
}

void generateCuda(const Program& prog, const GpuProgram& gp, const std::string& arch,
                  GpuSources& s) {
  Dialect dev = cudaDialect();
  dev.prelude.clear();  // the runtime's includes come first
  s.kernelSource = CLikeEmitter(dev).emitModule(gp.device);
  GpuHostRuntime rt = gpuHostRuntime(GpuApi::Cuda);
  std::vector<std::string> head = {
      fmt::format("Generated by Tessel from {} (CUDA backend; {}).", programName(prog), s.schedule),
      "Do not edit; regenerate.",
      "",
      kKernelListHeading,
      "  " + kernelList(s),
      "then the host code: device buffers, copies, launches timed with events.",
      "Build standalone (the tessel runtime does the same, then loads it with dlopen):",
      fmt::format("  nvcc {} {} -o {}", joined(cudaCompileFlags(arch)), kCudaSourceName,
                  kGpuLibraryName),
      "or with the CMakeLists.txt written next to this file. -fmad=false keeps a*b+c from being",
      "contracted into an FMA (exact agreement with Tessel's reference interpreter).",
      "",
  };
  for (auto& l : interfaceLines(prog, GpuApi::Cuda)) head.push_back(l);
  std::string tables = "// The kernels, by launch id.\n" + nameTable(s) +
                       "[[maybe_unused]] static const void* const kTesselKernels[] = {";
  tables += "\n";
  for (auto& k : s.launchNames) tables += "    (const void*)" + k + ",\n";
  tables += "    nullptr};\n";
  // Bytes of dynamic shared memory per kernel (0: its shared arrays are static).
  tables += "[[maybe_unused]] static const int kTesselKernelDynamicShared[] = {";
  const Dialect cuda = cudaDialect();
  for (const lir::Function& k : gp.device.functions)
    tables += fmt::format("{}, ", dynamicSharedBytes(k, cuda));
  tables += "0};\n\n";
  s.hostSource = commentBlock(head) + rt.includes + "\n" + s.kernelSource + "\n" + tables +
                 rt.definitions + "\n" + CLikeEmitter(gpuHostDialect()).emitModule(gp.host) + "\n" +
                 rt.entry;
  // CMake's spelling: sm_90 -> 90 (real code), compute_90 -> 90-virtual (PTX only).
  std::string archNum = arch.rfind("sm_", 0) == 0        ? arch.substr(3)
                        : arch.rfind("compute_", 0) == 0 ? arch.substr(8) + "-virtual"
                                                         : arch;
  s.cmakeLists = fmt::format(
      "# Builds the generated Tessel program ({}, CUDA) as the shared library the tessel\n"
      "# runtime loads: cmake -S . -B build && cmake --build build\n"
      "# (another GPU: -DCMAKE_CUDA_ARCHITECTURES=80, for example)\n"
      "cmake_minimum_required(VERSION 3.18)\n"
      "if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)\n"
      "  set(CMAKE_CUDA_ARCHITECTURES {})\n"
      "endif()\n"
      "project(tessel_program LANGUAGES CXX CUDA)\n"
      "add_library(tessel_program SHARED {})\n"
      "set_target_properties(tessel_program PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON\n"
      "                      POSITION_INDEPENDENT_CODE ON)\n"
      "target_compile_options(tessel_program PRIVATE -O3 -fmad=false\n"
      "                       -Xcompiler=-ffp-contract=off,-fwrapv)\n",
      programName(prog), archNum, kCudaSourceName);
}

void generateCpu(const Program& prog, const GpuProgram& gp, GpuSources& s) {
  s.kernelSource = CLikeEmitter(cpuKernelDialect()).emitModule(gp.device);
  GpuHostRuntime rt = gpuHostRuntime(GpuApi::Cpu);
  std::vector<std::string> head = {
      fmt::format(
          "Generated by Tessel from {} (C++/OpenMP target, the GPU kernels on the CPU; {}).",
          programName(prog), s.schedule),
      "Do not edit; regenerate.",
      "",
      kKernelListHeading,
      "  " + kernelList(s),
      "each a CPU function: a block is a tile run by one OpenMP thread, its threads loops that",
      "end at each barrier (pass work-item-loops). Then the host code, as for a GPU, over a",
      "runtime whose device buffers are host memory.",
      "Build standalone (the tessel runtime does the same, then loads it with dlopen):",
      fmt::format("  c++ {} {} -o {}", joined(cpuTiledCompileFlags()), kCpuSourceName,
                  kGpuLibraryName),
      "or with the CMakeLists.txt written next to this file.",
      "",
  };
  for (auto& l : interfaceLines(prog, GpuApi::Cpu)) head.push_back(l);
  std::string tables = "// The kernels, by launch id.\n" + nameTable(s) + "\n";
  s.hostSource = commentBlock(head) + rt.includes + "\n" + s.kernelSource + "\n" + tables +
                 rt.definitions + "\n" + CLikeEmitter(cpuHostDialect()).emitModule(gp.host) + "\n" +
                 rt.entry;
  s.cmakeLists = openmpLibraryCmake(
      {fmt::format("Builds the generated Tessel program ({}, GPU kernels on the CPU) as the "
                   "shared library",
                   programName(prog)),
       "the tessel runtime loads: cmake -S . -B build && cmake --build build"},
      kCpuSourceName, " -O3 -march=native -ffp-contract=off -fwrapv");
}

}  // namespace

GpuSources generateGpu(const Program& prog, GpuApi api, const ResolvedSchedule& resolved,
                       const std::string& cudaArch, PassLog* log) {
  PassLog silent;
  GpuProgram gp = lower(prog, resolved, api, log ? *log : silent);
  GpuSources s;
  s.api = api;
  s.kernels = gp.kernels;
  for (const lir::Function& f : gp.device.functions) s.launchNames.push_back(f.name);
  s.notes = gp.notes;
  s.schedule = scheduleText(prog, resolved, s);
  if (api == GpuApi::OpenCL)
    generateOpencl(prog, gp, s);
  else if (api == GpuApi::Cuda)
    generateCuda(prog, gp, cudaArch, s);
  else
    generateCpu(prog, gp, s);
  return s;
}

}  // namespace tessel
