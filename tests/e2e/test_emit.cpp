// `tessel emit --target cpp` output builds on its own with the CMakeLists.txt it comes with; the
// choices emit makes without parameter values; its output directory.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/command.h"

using namespace tessel::testing;
namespace fs = std::filesystem;

TEST(Emit, CppOutputBuildsStandaloneWithItsCMakeLists) {
  fs::path d = fs::temp_directory_path() / ("tessel-emit-" + std::to_string(getpid()));
  fs::remove_all(d);
  auto r = runCommand(tesselBinary() + " emit " + sourceDir() + "/benchmarks/cosmo-hdiff.sten" +
                      " --target cpp -o " + d.string());
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(fs::exists(d / "tessel_program.cpp"));
  EXPECT_FALSE(fs::exists(d / "build.log")) << "emit writes code; it does not compile it";
  auto b = runCommand("cmake -S " + d.string() + " -B " + (d / "build").string() +
                      " -G Ninja && cmake --build " + (d / "build").string());
  ASSERT_EQ(b.exitCode, 0) << b.output;
  fs::path lib = d / "build" / "libtessel_program.so";
  ASSERT_TRUE(fs::exists(lib));
  auto sym = runCommand("nm -D --defined-only " + lib.string());
  EXPECT_NE(sym.output.find("tessel_entry"), std::string::npos) << sym.output;
  fs::remove_all(d);
}

// The file comment's one-line build command works as written.
TEST(Emit, CppOutputBuildsWithTheCommandInItsHeader) {
  fs::path d = fs::temp_directory_path() / ("tessel-emit-cmd-" + std::to_string(getpid()));
  fs::remove_all(d);
  auto r = runCommand(tesselBinary() + " emit " + sourceDir() + "/benchmarks/heat.sten" +
                      " --target cpp -o " + d.string());
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::ifstream in(d / "tessel_program.cpp");
  std::string line, cmd;
  while (std::getline(in, line) && line.rfind("//", 0) == 0)
    if (line.rfind("//   c++ ", 0) == 0) cmd = line.substr(5);
  ASSERT_FALSE(cmd.empty()) << "no build command in the file comment";
  auto b = runCommand("cd " + d.string() + " && " + cmd);
  ASSERT_EQ(b.exitCode, 0) << cmd << "\n" << b.output;
  auto sym = runCommand("nm -D --defined-only " + (d / "libtessel_program.so").string());
  EXPECT_NE(sym.output.find("tessel_entry"), std::string::npos) << sym.output;
  fs::remove_all(d);
}

namespace {

fs::path freshDir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("tessel-emit-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

}  // namespace

// A parameter without a default (the user guide's jacobi2d.sten): the code emit writes takes it at
// run time, so the model's default choices (the schedule for a GPU target, the CUDA register cap)
// fall back with a note saying which value they need, and `--param` gives them one (was: emit
// --target cuda failed with "pass --param T=VALUE", an option emit did not take).
TEST(Emit, AParameterWithoutADefaultNeedsNoValue) {
  const fs::path d = freshDir("param");
  const fs::path file = d / "jacobi2d.sten";
  std::ofstream(file)
      << "parameter M=64, N=64;\n"
         "iterator j, i;\n"
         "double a[M,N], b[M,N];\n"
         "copyin a;\n"
         "stencil jac (out, in) {\n"
         "  out[j][i] = 0.25 * (in[j-1][i] + in[j+1][i] + in[j][i-1] + in[j][i+1]);\n"
         "}\n"
         "parameter T;\n"
         "iterate 1:T {\n"
         "  jac (b, a);\n"
         "  jac (a, b);\n"
         "}\n"
         "copyout a;\n";
  const std::string emit = tesselBinary() + " emit " + file.string();
  auto cuda = runCommand(emit + " --target cuda -o " + (d / "cu").string());
  ASSERT_EQ(cuda.exitCode, 0) << cuda.output;
  EXPECT_TRUE(fs::exists(d / "cu" / "tessel_program.cu"));
  EXPECT_NE(cuda.output.find("the performance model cannot choose one (parameter 'T' has no "
                             "default and no value was given): the program's own default is "
                             "emitted\n  hint: pass --param T=VALUE"),
            std::string::npos)
      << cuda.output;
  if (cuda.output.find("nvcc not found") == std::string::npos)
    EXPECT_NE(cuda.output.find("the CUDA kernels keep their launch bounds: the model's register "
                               "cap (--max-registers auto, the default) needs a value of every "
                               "parameter"),
              std::string::npos)
        << cuda.output;
  auto opencl = runCommand(emit + " --target opencl -o " + (d / "cl").string());
  ASSERT_EQ(opencl.exitCode, 0) << opencl.output;
  EXPECT_NE(opencl.output.find("hint: pass --param T=VALUE, or name a schedule"), std::string::npos)
      << opencl.output;
  // With a value the model chooses, and no note is left.
  auto given = runCommand(emit + " --target opencl --param T=10 -o " + (d / "cl2").string());
  ASSERT_EQ(given.exitCode, 0) << given.output;
  EXPECT_NE(given.output.find("the model ranks"), std::string::npos) << given.output;
  EXPECT_EQ(given.output.find("cannot choose"), std::string::npos) << given.output;
  // Asked for by name, the choice needs the value: an error whose hint emit now takes.
  auto asked = runCommand(emit + " --target opencl --schedule auto -o " + (d / "cl3").string());
  EXPECT_EQ(asked.exitCode, 1) << asked.output;
  EXPECT_NE(asked.output.find("hint: pass --param T=VALUE"), std::string::npos) << asked.output;
  auto wrong = runCommand(emit + " --target opencl --param X=1 -o " + (d / "cl4").string());
  EXPECT_EQ(wrong.exitCode, 1) << wrong.output;
  EXPECT_NE(wrong.output.find("the program has no parameter 'X'"), std::string::npos)
      << wrong.output;
  fs::remove_all(d);
}

// emit never overwrites a file Tessel did not write; an earlier emit's files of another target
// stay, and a note says so; the printed build command survives a path with a space.
TEST(Emit, TheOutputDirectory) {
  const fs::path d = freshDir("dir");
  const std::string j2d5pt = sourceDir() + "/benchmarks/j2d5pt.sten";
  const fs::path mine = d / "my project";
  fs::create_directories(mine);
  std::ofstream(mine / "CMakeLists.txt") << "# my own build\n";
  auto r = runCommand(tesselBinary() + " emit " + j2d5pt + " -o '" + mine.string() + "'");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("holds CMakeLists.txt that Tessel did not write, and emit would "
                          "overwrite it\n  hint: emit into another directory"),
            std::string::npos)
      << r.output;
  std::ifstream kept(mine / "CMakeLists.txt");
  std::string first;
  std::getline(kept, first);
  EXPECT_EQ(first, "# my own build");
  EXPECT_FALSE(fs::exists(mine / "tessel_program.cpp"));

  const fs::path spaced = d / "with space";
  auto cpp = runCommand(tesselBinary() + " emit " + j2d5pt + " -o '" + spaced.string() + "'");
  ASSERT_EQ(cpp.exitCode, 0) << cpp.output;
  EXPECT_NE(cpp.output.find("build it standalone: cmake -S '" + spaced.string() + "' -B '" +
                            spaced.string() + "/build' && cmake --build '"),
            std::string::npos)
      << cpp.output;
  // Again: its own files are overwritten without a word; another target's stay, with a note.
  auto again = runCommand(tesselBinary() + " emit " + j2d5pt + " -o '" + spaced.string() + "'");
  EXPECT_EQ(again.exitCode, 0) << again.output;
  EXPECT_EQ(again.output.find("note: "), std::string::npos) << again.output;
  auto cl = runCommand(tesselBinary() + " emit " + j2d5pt + " --target opencl -o '" +
                       spaced.string() + "'");
  ASSERT_EQ(cl.exitCode, 0) << cl.output;
  EXPECT_NE(cl.output.find("also holds tessel_program.cpp from an earlier emit for another "
                           "target; the CMakeLists.txt written now builds the opencl files only"),
            std::string::npos)
      << cl.output;
  fs::remove_all(d);
}

// The emitted library called directly with parameters that make an extent negative (or its bytes
// overflow) stops before allocating, naming the array (was: an allocation of 18446744073709549696
// bytes, failing with CL_INVALID_BUFFER_SIZE or malloc's message). The C++ target's GPU-kernel
// build (`--schedule shared`) shares the host runtime of the OpenCL and CUDA ones.
TEST(Emit, TheLibraryRefusesANegativeExtent) {
  const fs::path d = freshDir("extent");
  auto r = runCommand(tesselBinary() + " emit " + sourceDir() +
                      "/benchmarks/j2d5pt.sten --schedule shared -o " + d.string());
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::ofstream(d / "driver.cpp") << R"(#include <cstdint>
#include <cstdio>
#include <cstdlib>
struct tessel_gpu;
extern "C" int32_t tessel_gpu_open(const char*, tessel_gpu**, char*, int32_t);
extern "C" int32_t tessel_gpu_run(tessel_gpu*, void* const*, const double*, const int64_t*,
                                  double*, char*, int32_t);
int main(int argc, char** argv) {
  char message[512] = "";
  tessel_gpu* gpu = nullptr;
  if (tessel_gpu_open(nullptr, &gpu, message, sizeof message) != 0) return 9;
  const int64_t params[3] = {std::atoll(argv[1]), std::atoll(argv[2]), 1};
  double a[64] = {}, b[64] = {}, seconds = 0;
  void* arrays[2] = {a, b};
  const int32_t code = tessel_gpu_run(gpu, arrays, nullptr, params, &seconds, message,
                                      sizeof message);
  std::printf("%d %s\n", code, message);
  return 0;
}
)";
  auto b = runCommand("cd " + d.string() +
                      " && c++ -std=c++17 -O0 -fopenmp driver.cpp tessel_program.cpp -o driver");
  ASSERT_EQ(b.exitCode, 0) << b.output;
  auto neg = runCommand((d / "driver").string() + " -5 8");
  EXPECT_NE(neg.output.find("102 array in: -40 elements of 8 bytes (an extent is negative: check "
                            "the parameters)"),
            std::string::npos)
      << neg.output;
  auto huge = runCommand((d / "driver").string() + " 3000000000 3000000000");
  EXPECT_NE(huge.output.find("102 array in: 9000000000000000000 elements of 8 bytes (too many "
                             "bytes: check the parameters)"),
            std::string::npos)
      << huge.output;
  auto ok = runCommand((d / "driver").string() + " 8 8");
  EXPECT_EQ(ok.output, "0 \n") << ok.output;
  fs::remove_all(d);
}

// The sources say which command wrote them (quoted for a shell), under "Do not edit;
// regenerate."; the OpenCL kernel file stays as the host file embeds it.
TEST(Emit, TheSourcesSayWhichCommandWroteThem) {
  const fs::path d = freshDir("command") / "out dir";
  const std::string j2d5pt = sourceDir() + "/benchmarks/j2d5pt.sten";
  auto r = runCommand(tesselBinary() + " emit " + j2d5pt +
                      " --target opencl --schedule shared -o '" + d.string() + "'");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  auto firstLines = [](const fs::path& f) {
    std::ifstream in(f);
    std::string all, line;
    for (int n = 0; n < 3 && std::getline(in, line); ++n) all += line + "\n";
    return all;
  };
  const std::string written = "// Written by: tessel emit " + j2d5pt +
                              " --target opencl --schedule shared -o '" + d.string() + "'\n";
  EXPECT_NE(firstLines(d / "tessel_host.cpp").find("// Do not edit; regenerate.\n" + written),
            std::string::npos)
      << firstLines(d / "tessel_host.cpp");
  EXPECT_EQ(firstLines(d / "tessel_kernels.cl").find("Written by"), std::string::npos);
  auto cpp =
      runCommand(tesselBinary() + " emit " + j2d5pt + " -o " + (d.parent_path() / "c").string());
  ASSERT_EQ(cpp.exitCode, 0) << cpp.output;
  EXPECT_NE(firstLines(d.parent_path() / "c" / "tessel_program.cpp")
                .find("Do not edit; regenerate.\n// Written by: tessel emit " + j2d5pt + " -o "),
            std::string::npos);
  fs::remove_all(d.parent_path());
}
