// The tuning database: what `tessel tune` measured, remembered in SQLite so that a later tune
// skips what it has measured and `tessel run --tuned` runs the fastest. One row per variant
// measured: the program (a hash of its file), its parameter values, the backend, the host, the
// tessel build that generated the code (a hash of the executable: a rebuilt compiler
// generates other kernels, so its timings are not reused), the fusion choice and the schedule
// flags; the median time, the device, the model's prediction, and when.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

struct sqlite3;

namespace tessel {

/// What a measurement is valid for: the same program, parameters, backend, host and build.
struct TuningKey {
  std::string program;  // hash of the program file's bytes (hex)
  std::string params;   // "L=64 M=64 N=64": every parameter's value, in program order
  std::string backend;  // cpp, opencl, cuda
  std::string host;     // the machine's host name
  std::string build;    // hash of the tessel executable (hex)
};

struct TuningRecord {
  std::string fusion;                        // the --fusion-groups value ("none": as written)
  std::map<std::string, std::string> flags;  // the schedule flags it ran under
  std::string schedule;                      // the flags as text ("stream --time-tile 2")
  double seconds = 0;                        // measured per run (median of `repeat`)
  int repeat = 0;
  std::optional<double> predictedSeconds;  // the model's, on its machine
  std::string device;                      // the backend's device, as run reports it
  std::string measuredAt;                  // UTC, ISO 8601
};

/// Another connection holds the database's lock past the wait (another tessel tune writing, a
/// `sqlite3` shell in a transaction): what TuningDb throws then, instead of a plain
/// std::runtime_error.
struct TuningDbBusy : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class TuningDb {
 public:
  /// Opens (creating where missing, with its directory) the database at `path`, or with
  /// `readOnly` an existing one as it is (creating nothing); throws std::runtime_error naming
  /// the file and with SQLite's message where it cannot (TuningDbBusy where another connection
  /// holds the lock for longer than `waitMs`). The queries below throw the same way (a file
  /// whose table is not this one's, say).
  explicit TuningDb(const std::filesystem::path& path, bool readOnly = false, int waitMs = 5000);
  ~TuningDb();
  TuningDb(const TuningDb&) = delete;
  TuningDb& operator=(const TuningDb&) = delete;

  /// The record of `fusion` under `flags` for `key`, if measured.
  std::optional<TuningRecord> find(const TuningKey& key, const std::string& fusion,
                                   const std::map<std::string, std::string>& flags) const;
  /// Stores (replacing) the record of its fusion and flags for `key`.
  void store(const TuningKey& key, const TuningRecord& r);
  /// Every record for `key`, fastest first.
  std::vector<TuningRecord> records(const TuningKey& key) const;
  /// How many records the same program, parameters, backend and host have from other builds.
  int64_t otherBuilds(const TuningKey& key) const;
  /// The other host settings (TuningKey::host: the host's name and the environment settings
  /// that change a run) under which this build measured the same program, parameters and
  /// backend, each with its count of records.
  std::map<std::string, int64_t> otherSettings(const TuningKey& key) const;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  sqlite3* db_ = nullptr;
};

/// $TESSEL_TUNING_DB, else $XDG_CACHE_HOME/tessel/tuning.db, else ~/.cache/tessel/tuning.db.
std::filesystem::path defaultTuningDbPath();

}  // namespace tessel
