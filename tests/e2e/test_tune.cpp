// `tessel tune` and `tessel run --tuned` (driver/tune.h): the model's first variants measured on
// a backend, each verified; the measurements remembered in the tuning database and reused by a
// second tune (and measured again with --remeasure); `run --tuned` runs the fastest and
// verifies; the errors (nothing tuned, flags beside --tuned, a database that cannot be opened).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "exec/build_util.h"
#include "support/command.h"
#include "support/files.h"
#include "unit/gpu_test_util.h"

using namespace tessel::testing;
using namespace tessel::gputest;

namespace {

const std::string kParams = " --param L=9 --param M=37 --param N=41";

nlohmann::json tuneJson(const std::string& args) {
  auto r = runCommand(tesselBinary() + " tune --json " + args);  // progress lines, then JSON
  EXPECT_EQ(r.exitCode, 0) << args << "\n" << r.output;
  const size_t open = r.output.find('{');
  return r.exitCode == 0 && open != std::string::npos ? nlohmann::json::parse(r.output.substr(open))
                                                      : nlohmann::json();
}

}  // namespace

TEST(Tune, MeasuresRemembersAndRunsTheFastest) {
  TESSEL_REQUIRE_OPENCL();
  const auto dir = freshTempDir("tune", "remember");
  const std::string db = (dir / "tuning.db").string();
  const std::string file = benchmarkPath("cosmo-hdiff").string();
  const std::string args = file + " --backend opencl --top 3 --repeat 1 --db " + db + kParams;
  const nlohmann::json first = tuneJson(args);
  ASSERT_EQ(first["rows"].size(), 3u) << first.dump(2);
  for (const auto& r : first["rows"]) {
    EXPECT_EQ(r["source"], "measured") << r;
    EXPECT_GT(r["seconds"].get<double>(), 0) << r;
    EXPECT_GT(r["predicted_seconds"].get<double>(), 0) << r;
  }
  const size_t best = first["best"];
  for (const auto& r : first["rows"])
    EXPECT_LE(first["rows"][best]["seconds"].get<double>(), r["seconds"].get<double>());
  EXPECT_TRUE(std::filesystem::exists(db));
  // Again: every row from the database, the same times; --remeasure measures them anew.
  const nlohmann::json second = tuneJson(args);
  ASSERT_EQ(second["rows"].size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(second["rows"][i]["source"], "database");
    EXPECT_EQ(second["rows"][i]["seconds"], first["rows"][i]["seconds"]);
    EXPECT_EQ(second["rows"][i]["schedule"], first["rows"][i]["schedule"]);
  }
  const nlohmann::json third = tuneJson(args + " --remeasure");
  for (const auto& r : third["rows"]) EXPECT_EQ(r["source"], "measured");
  // Other parameter values are another key: measured, not taken from the database.
  const nlohmann::json other = tuneJson(file + " --backend opencl --top 1 --repeat 1 --db " + db +
                                        " --param L=10 --param M=37 --param N=41");
  EXPECT_EQ(other["rows"][0]["source"], "measured");
  // The text names the command that runs the fastest; run --tuned runs it and verifies.
  auto text = runCommand(tesselBinary() + " tune " + args);
  EXPECT_EQ(text.exitCode, 0) << text.output;
  EXPECT_NE(text.output.find("<- fastest"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("run the fastest: " + third["command"].get<std::string>()),
            std::string::npos)
      << text.output;
  // --show: what the database has, fastest first, nothing measured.
  auto shown = runCommand(tesselBinary() + " tune --show --json " + file +
                          " --backend opencl --db " + db + kParams);
  ASSERT_EQ(shown.exitCode, 0) << shown.output;
  EXPECT_EQ(shown.output.find("measuring"), std::string::npos) << shown.output;
  const nlohmann::json s = nlohmann::json::parse(shown.output);
  ASSERT_EQ(s["rows"].size(), 3u) << s.dump(2);
  EXPECT_EQ(s["rows"][0]["seconds"], third["rows"][third["best"].get<size_t>()]["seconds"]);
  // A run without --tuned says that tune measured the program here (the default database:
  // TESSEL_TUNING_DB), and runs as asked; with another backend it says nothing.
  auto hinted = runCommand("TESSEL_TUNING_DB=" + db + " " + tesselBinary() + " run " + file +
                           " --backend opencl --schedule shared" + kParams);
  EXPECT_EQ(hinted.exitCode, 0) << hinted.output;
  EXPECT_NE(hinted.output.find("note: tessel tune measured 3 variants of this program here"),
            std::string::npos)
      << hinted.output;
  auto cpp = runCommand("TESSEL_TUNING_DB=" + db + " " + tesselBinary() + " run " + file +
                        " --backend cpp" + kParams);
  EXPECT_EQ(cpp.exitCode, 0) << cpp.output;
  EXPECT_EQ(cpp.output.find("tessel tune measured"), std::string::npos) << cpp.output;
  auto run = runCommand(tesselBinary() + " run " + file + " --backend opencl --tuned --verify" +
                        kParams + " --tuning-db " + db);
  EXPECT_EQ(run.exitCode, 0) << run.output;
  EXPECT_NE(run.output.find("note: --tuned: "), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("the fastest tune measured"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("verification PASSED"), std::string::npos) << run.output;
}

TEST(Tune, Errors) {
  const auto dir = freshTempDir("tune", "errors");
  const std::string db = (dir / "tuning.db").string();
  const std::string file = benchmarkPath("j2d5pt").string();
  // Nothing tuned for this program: the hint says how.
  auto none =
      runCommand(tesselBinary() + " run " + file + " --backend cpp --tuned --tuning-db " + db);
  EXPECT_EQ(none.exitCode, 1) << none.output;
  EXPECT_NE(none.output.find("there is no tuning database at " + db), std::string::npos)
      << none.output;
  // The hint's command writes the database --tuned reads.
  EXPECT_NE(none.output.find("hint: run tessel tune " + file + " --backend cpp --db '" + db + "'"),
            std::string::npos)
      << none.output;
  // A schedule beside --tuned: refused, naming it.
  auto both = runCommand(tesselBinary() + " run " + file +
                         " --backend cpp --tuned --schedule shared --tuning-db " + db);
  EXPECT_EQ(both.exitCode, 1) << both.output;
  EXPECT_NE(both.output.find("--schedule given as well"), std::string::npos) << both.output;
  auto dbOnly = runCommand(tesselBinary() + " run " + file + " --backend cpp --tuning-db " + db);
  EXPECT_EQ(dbOnly.exitCode, 1) << dbOnly.output;
  EXPECT_NE(dbOnly.output.find("--tuned is missing"), std::string::npos) << dbOnly.output;
  // What tune searches is not also given.
  auto family = runCommand(tesselBinary() + " tune " + file + " --backend cpp --db " + db +
                           " --schedule stream");
  EXPECT_EQ(family.exitCode, 1) << family.output;
  EXPECT_NE(family.output.find("tune searches the families and time tiles"), std::string::npos)
      << family.output;
  // Reading a database creates nothing: a path that does not exist stays so.
  const auto typo = dir / "typo" / "x.db";
  auto missing = runCommand(tesselBinary() + " run " + file +
                            " --backend cpp --tuned --tuning-db " + typo.string());
  EXPECT_EQ(missing.exitCode, 1) << missing.output;
  auto show = runCommand(tesselBinary() + " tune --show " + file + " --db " + typo.string());
  EXPECT_EQ(show.exitCode, 0) << show.output;
  EXPECT_NE(show.output.find("no tuning database at " + typo.string()), std::string::npos)
      << show.output;
  EXPECT_FALSE(std::filesystem::exists(typo.parent_path()));
  // A file that is another program's SQLite database: an error naming it, not a crash.
  const std::string foreign = (dir / "foreign.db").string();
  auto made = runCommand("python3 -c \"import sqlite3; c = sqlite3.connect('" + foreign +
                         "'); c.execute('create table measurements (x int)'); c.commit()\"");
  ASSERT_EQ(made.exitCode, 0) << made.output;
  for (const std::string& cmd :
       {tesselBinary() + " tune " + file + " --backend cpp --top 1 --db " + foreign,
        tesselBinary() + " tune --show " + file + " --db " + foreign,
        tesselBinary() + " run " + file + " --backend cpp --tuned --tuning-db " + foreign}) {
    auto r = runCommand(cmd);
    EXPECT_EQ(r.exitCode, 1) << cmd << "\n" << r.output;
    EXPECT_NE(r.output.find("tuning database '" + foreign + "'"), std::string::npos) << cmd << "\n"
                                                                                     << r.output;
    EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
  }
  // A database that cannot be opened (a directory): an error naming it, with a hint.
  auto bad = runCommand(tesselBinary() + " tune " + file + " --backend cpp --db " + dir.string());
  EXPECT_EQ(bad.exitCode, 1) << bad.output;
  EXPECT_NE(bad.output.find("the tuning database '" + dir.string() + "' is a directory"),
            std::string::npos)
      << bad.output;
  EXPECT_NE(bad.output.find("hint: give a file with --db PATH"), std::string::npos) << bad.output;
  // A run that computes nothing (every region empty at M = N = 2): nothing to tune.
  auto empty = runCommand(tesselBinary() + " tune " + file + " --backend cpp --db " + db +
                          " --param M=2 --param N=2");
  EXPECT_EQ(empty.exitCode, 1) << empty.output;
  EXPECT_NE(empty.output.find("the run computes nothing at these parameter values"),
            std::string::npos)
      << empty.output;
  // --show measures nothing: the options of a measurement are refused beside it.
  auto show2 = runCommand(tesselBinary() + " tune --show " + file + " --db " + db + " --top 3");
  EXPECT_EQ(show2.exitCode, 1) << show2.output;
  EXPECT_NE(show2.output.find("--top given as well"), std::string::npos) << show2.output;
  // Malformed --blocks and --also values stop the tune before it measures anything.
  for (const char* opt : {"--blocks abc", "--blocks 0,8", "--also '--index-bits 16'",
                          "--also '--perspective bogus'"}) {
    auto r = runCommand(tesselBinary() + " tune " + file + " --backend cpp --top 1 --db " + db +
                        " " + opt);
    EXPECT_EQ(r.exitCode, 1) << opt << "\n" << r.output;
    EXPECT_EQ(r.output.find("measuring"), std::string::npos) << opt << "\n" << r.output;
  }
}

// Variants that generate the same code (flags the C++ backend's loop nests do not use: a block,
// --fma) are measured once: the others are listed with the row whose code they generate, and
// the next row of the ranking takes their place. The database: a plain run never writes it, a
// locked one neither stops a tune nor holds up a run, and run --tuned --json names the variant.
TEST(Tune, SameCodeOnceAndTheDatabaseAsAUserWouldExpect) {
  const auto dir = freshTempDir("tune", "same-code");
  const std::string db = (dir / "tuning.db").string();
  const std::string file = benchmarkPath("j2d5pt").string();
  const std::string params = " --param M=37 --param N=29 --param T=2";
  const nlohmann::json t = tuneJson(file + " --backend cpp --top 1 --repeat 1 --db " + db + params +
                                    " --blocks 16,4 --also '--fma'");
  ASSERT_EQ(t["rows"].size(), 1u) << t.dump(2);
  EXPECT_EQ(t["rows"][0]["fusion"], "none") << t.dump(2);  // as --fusion-groups says it
  EXPECT_EQ(t["rows"][0]["flags"].value("--schedule", ""), "global") << t.dump(2);
  ASSERT_EQ(t["same_code"].size(), 2u) << t.dump(2);
  for (const auto& s : t["same_code"]) EXPECT_EQ(s["row"], 0) << s;
  auto text = runCommand(tesselBinary() + " tune " + file + " --backend cpp --top 1 --repeat 1 " +
                         "--db " + db + params + " --blocks 16,4");
  ASSERT_EQ(text.exitCode, 0) << text.output;
  EXPECT_NE(text.output.find("global --block 16,4"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("the same code as row 1: not measured again"), std::string::npos)
      << text.output;
  // run --tuned --json names what it ran.
  auto run = runCommand(tesselBinary() + " run --json " + file + " --backend cpp --tuned" + params +
                        " --tuning-db " + db);
  ASSERT_EQ(run.exitCode, 0) << run.output;
  const nlohmann::json r = nlohmann::json::parse(run.output.substr(run.output.find('{')));
  EXPECT_EQ(r["tuned"]["schedule"], "global") << r.dump(2);
  EXPECT_EQ(r["tuned"]["fusion"], "none") << r.dump(2);
  // Measured under other settings of the environment: the error says where it was measured.
  auto other = runCommand("OMP_NUM_THREADS=1 " + tesselBinary() + " run " + file +
                          " --backend cpp --tuned" + params + " --tuning-db " + db);
  EXPECT_EQ(other.exitCode, 1) << other.output;
  EXPECT_NE(other.output.find("under the host settings"), std::string::npos) << other.output;
  // A plain run never writes the database (an empty file stays empty).
  const auto empty = dir / "empty.db";
  tessel::writeFile(empty, "");
  auto plain = runCommand("TESSEL_TUNING_DB=" + empty.string() + " " + tesselBinary() + " run " +
                          file + " --backend cpp" + params);
  EXPECT_EQ(plain.exitCode, 0) << plain.output;
  EXPECT_EQ(std::filesystem::file_size(empty), 0u);
  // Another process holds the database's lock: the tune measures and says it recorded nothing.
  auto locked =
      runCommand("python3 -c \"import sqlite3, subprocess, sys; c = sqlite3.connect('" + db +
                 "', isolation_level=None); c.execute('BEGIN EXCLUSIVE'); "
                 "sys.exit(subprocess.call(sys.argv[1], shell=True))\" '" +
                 tesselBinary() + " tune " + file +
                 " --backend cpp --top 1 --repeat 1 --remeasure --db " + db + params + "'");
  EXPECT_EQ(locked.exitCode, 0) << locked.output;
  EXPECT_NE(locked.output.find("measuring"), std::string::npos) << locked.output;
  EXPECT_NE(locked.output.find("not recorded: "), std::string::npos) << locked.output;
  EXPECT_NE(locked.output.find("another process holds its lock"), std::string::npos)
      << locked.output;
}

// --blocks and --also: each of the model's rows also under each block and each option set its
// family takes (remembered apart: they are part of the flags); one the validation refuses is
// left out, and said so.
TEST(Tune, BlocksAndOptionSetsWidenTheSearch) {
  TESSEL_REQUIRE_OPENCL();
  const auto dir = freshTempDir("tune", "blocks");
  const std::string db = (dir / "tuning.db").string();
  auto r = runCommand(tesselBinary() + " tune --json " + benchmarkPath("j2d5pt").string() +
                      " --backend opencl --top 1 --repeat 1 --param M=67 --param N=45 --db " + db +
                      " --blocks 64,4 2048,2048 32,8 --also '--unroll i=2' --also '--prefetch'"
                      " --also '--unroll=i=2' --blocks 64,4");  // the last two: given twice
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("--block 2048,2048: refused"), std::string::npos) << r.output;
  const nlohmann::json t = nlohmann::json::parse(r.output.substr(r.output.find('{')));
  EXPECT_EQ(t["ranked_rows"], 1);
  // The model's first row for j2d5pt is `global`, not streamed: --prefetch is refused there.
  ASSERT_EQ(t["rows"][0]["flags"].value("--schedule", ""), "global") << t.dump(2);
  EXPECT_NE(r.output.find("--prefetch: refused"), std::string::npos) << r.output;
  ASSERT_EQ(t["rows"].size(), 3u) << t.dump(2);
  EXPECT_EQ(t["rows"][1]["flags"]["--block"], "64,4");
  EXPECT_NE(t["rows"][1]["schedule"].get<std::string>().find("--block 64,4"), std::string::npos);
  EXPECT_NE(t["rows"][0]["flags"].value("--block", ""), "64,4");
  // 32,8 is the row's own block (global's default in 2-D): the same code, not measured again;
  // so are the block and the option set given twice.
  ASSERT_EQ(t["same_code"].size(), 3u) << t.dump(2);
  EXPECT_EQ(t["same_code"][0]["schedule"], "global --block 32,8") << t.dump(2);
  EXPECT_EQ(t["same_code"][0]["row"], 0) << t.dump(2);
  EXPECT_EQ(t["rows"][2]["flags"]["--unroll"], "i=2");
  for (const auto& row : t["rows"]) EXPECT_EQ(row["source"], "measured");
  // The flags given to tune are part of each variant: its schedule says them, and they are
  // another record (the rows above are not taken from the database).
  auto fma = runCommand(tesselBinary() + " tune --json " + benchmarkPath("j2d5pt").string() +
                        " --backend opencl --top 1 --repeat 1 --param M=67 --param N=45 --db " +
                        db + " --fma");
  ASSERT_EQ(fma.exitCode, 0) << fma.output;
  const nlohmann::json f = nlohmann::json::parse(fma.output.substr(fma.output.find('{')));
  EXPECT_EQ(f["rows"][0]["source"], "measured");
  EXPECT_NE(f["rows"][0]["schedule"].get<std::string>().find("--fma"), std::string::npos);
  EXPECT_FALSE(f["tuned_pick"].is_null());
  // Other settings of the environment (the threads of the C++ backend) are another key.
  const std::string tuneCpp = tesselBinary() + " tune --json " + benchmarkPath("j2d5pt").string() +
                              " --backend cpp --top 1 --repeat 1 --param M=67 --param N=45 --db " +
                              db;
  auto one = runCommand("OMP_NUM_THREADS=1 " + tuneCpp);
  auto two = runCommand("OMP_NUM_THREADS=2 " + tuneCpp);
  ASSERT_EQ(two.exitCode, 0) << two.output;
  EXPECT_EQ(one.output.find("(tuning database)"), std::string::npos) << one.output;
  EXPECT_EQ(two.output.find("(tuning database)"), std::string::npos) << two.output;
  // Not a schedule option, one tune searches itself, or one without its value: refused.
  for (const char* bad : {"--bogus", "--schedule stream", "--unroll"}) {
    auto e = runCommand(tesselBinary() + " tune " + benchmarkPath("j2d5pt").string() +
                        " --backend opencl --db " + db + " --also '" + bad + "'");
    EXPECT_EQ(e.exitCode, 1) << bad << "\n" << e.output;
    EXPECT_NE(e.output.find("error: --also '"), std::string::npos) << e.output;
  }
}
