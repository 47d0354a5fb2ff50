// What the compiled backends share: cache keys, files written atomically, running a compiler,
// and the typed host copies of a ProgramState's arrays that generated code reads and writes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "ir/program.h"
#include "runtime/state.h"

namespace tessel {

/// The CPU model and flags lines of /proc/cpuinfo (empty where there is none).
std::string hostCpu();
uint64_t fnv1a(const std::string& s);
std::string shellQuote(const std::string& s);
std::string readFile(const std::filesystem::path& p);
/// A name no other writer (thread or process) uses at the same time.
std::filesystem::path tempName(const std::filesystem::path& p);
/// Writes atomically: concurrent builders of the same directory never see a partial file.
/// Throws std::filesystem::filesystem_error naming `p` and the system's reason where it cannot
/// (leaving no temporary file).
void writeFile(const std::filesystem::path& p, const std::string& text);
/// Whether a file can be created in the existing directory `dir` (tried, then removed); where
/// not, `why` is the system's reason.
bool directoryWritable(const std::filesystem::path& dir, std::string& why);
std::string firstLines(const std::string& text, int n);

/// `flags` with every optimisation level (-O0 ... -O3, -Os, -Ofast) replaced by `level`, or
/// unchanged when `level` is empty. For TESSEL_HOST_OPT: quicker builds of generated code
/// where only its results matter (the tests run hundreds of small programs).
std::vector<std::string> withOptLevel(std::vector<std::string> flags, const std::string& level);

/// Runs `command` (a shell command line) in `dir` with its output in `log`; returns the exit
/// status (126/127: the shell could not run the program; -1: it did not exit normally).
int runInDirectory(const std::filesystem::path& dir, const std::string& command,
                   const std::filesystem::path& log);

/// One global array converted to its element type for generated code (row-major, as declared:
/// double, float, int32_t, bool), and back.
class TypedBuffer {
 public:
  explicit TypedBuffer(ArrayData& a);
  void* ptr() const { return ptr_; }
  void storeBack();

 private:
  ArrayData& a_;
  void* ptr_ = nullptr;
  std::vector<float> f_;
  std::vector<int32_t> i_;
  std::unique_ptr<bool[]> b_;
};

/// Every global array of a state as TypedBuffers, with the pointer table the generated entry
/// points take (arrays[0], arrays[1], ...), and back.
class TypedArrays {
 public:
  explicit TypedArrays(ProgramState& state);
  void* const* pointers() const { return ptrs_.data(); }
  void storeBack();

 private:
  std::vector<TypedBuffer> bufs_;
  std::vector<void*> ptrs_;
};

/// Throws RuntimeError when the state does not match the program or an access would leave an
/// array at these parameter values.
void checkState(const Program& prog, const ProgramState& st);

}  // namespace tessel
