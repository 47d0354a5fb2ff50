// The tuning database (tune/tuning_db.h): records stored and found by key, fusion choice and
// flags; replaced when stored again; listed fastest first; other builds counted, not returned;
// a path that cannot hold a database is an error that names it.
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>

#include "tune/tuning_db.h"

using namespace tessel;
namespace fs = std::filesystem;

namespace {

fs::path freshDb(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("tessel-test-tuning-db-" + name);
  fs::remove_all(dir);
  return dir / "sub" / "tuning.db";  // the directory is created with the database
}

TuningKey key(const std::string& build = "b1") {
  return {"p1", "L=16 M=64", "opencl", "host", build};
}

TuningRecord record(const std::string& fusion, const std::string& family, double seconds) {
  TuningRecord r;
  r.fusion = fusion;
  r.flags = {{"--schedule", family}};
  r.schedule = family;
  r.seconds = seconds;
  r.repeat = 3;
  r.predictedSeconds = seconds / 10;
  r.device = "test device";
  r.measuredAt = "2026-11-29T00:00:00Z";
  return r;
}

}  // namespace

TEST(TuningDb, StoresFindsAndListsFastestFirst) {
  const fs::path path = freshDb("basic");
  {
    TuningDb db(path);
    EXPECT_TRUE(fs::exists(path));
    EXPECT_FALSE(db.find(key(), "none", {{"--schedule", "global"}}));
    db.store(key(), record("none", "global", 2e-3));
    db.store(key(), record("none", "stream", 1e-3));
    db.store(key(), record("greedy", "global", 3e-3));
  }
  TuningDb db(path);  // reopened: what was stored is there
  auto g = db.find(key(), "none", {{"--schedule", "global"}});
  ASSERT_TRUE(g);
  EXPECT_DOUBLE_EQ(g->seconds, 2e-3);
  EXPECT_EQ(g->schedule, "global");
  ASSERT_TRUE(g->predictedSeconds);
  EXPECT_DOUBLE_EQ(*g->predictedSeconds, 2e-4);
  EXPECT_EQ(g->device, "test device");
  EXPECT_EQ(g->repeat, 3);
  // The fusion choice and the flags are part of what a record is for.
  EXPECT_FALSE(db.find(key(), "greedy", {{"--schedule", "stream"}}));
  EXPECT_FALSE(db.find(key(), "none", {{"--schedule", "global"}, {"--block", "32,8"}}));
  const auto all = db.records(key());
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].schedule, "stream");
  EXPECT_EQ(all[2].fusion, "greedy");
  // Stored again: replaced, not added.
  db.store(key(), record("none", "global", 0.5e-3));
  const auto again = db.records(key());
  ASSERT_EQ(again.size(), 3u);
  EXPECT_EQ(again[0].schedule, "global");
  EXPECT_DOUBLE_EQ(again[0].seconds, 0.5e-3);
}

TEST(TuningDb, OtherBuildsAndKeysAreApart) {
  TuningDb db(freshDb("keys"));
  db.store(key("b1"), record("none", "global", 1e-3));
  db.store(key("b2"), record("none", "global", 2e-3));
  db.store(key("b2"), record("none", "stream", 2e-3));
  EXPECT_EQ(db.records(key("b1")).size(), 1u);
  EXPECT_EQ(db.otherBuilds(key("b1")), 2);
  EXPECT_EQ(db.otherBuilds(key("b3")), 3);
  TuningKey other = key("b1");
  other.params = "L=32 M=64";
  EXPECT_TRUE(db.records(other).empty());
  EXPECT_EQ(db.otherBuilds(other), 0);
  other = key("b1");
  other.backend = "cuda";
  EXPECT_TRUE(db.records(other).empty());
}

TEST(TuningDb, APathThatCannotHoldADatabaseIsAnError) {
  const fs::path dir = freshDb("bad").parent_path();
  fs::create_directories(dir);
  try {
    TuningDb db(dir);  // a directory
    FAIL() << "a directory opened as a database";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(dir.string()), std::string::npos) << e.what();
  }
}
