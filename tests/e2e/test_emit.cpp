// `tessel emit --target cpp` output builds on its own with the CMakeLists.txt it comes with.
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
