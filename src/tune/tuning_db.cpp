#include "tune/tuning_db.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace tessel {

namespace {

/// An error of the database `db`, naming its file.
[[noreturn]] void fail(sqlite3* db, const std::string& what) {
  const char* file = sqlite3_db_filename(db, "main");
  const std::string msg = fmt::format("tuning database '{}': {}", file ? file : "?", what);
  const int code = sqlite3_errcode(db);
  if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
    throw TuningDbBusy(msg +
                       " (another process holds its lock: another tessel tune, or an "
                       "open transaction)");
  throw std::runtime_error(msg);
}

/// One prepared statement, finalized when it goes out of scope; errors throw naming the file.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) fail(db, sqlite3_errmsg(db));
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, const std::string& s) {
    sqlite3_bind_text(stmt_, i, s.c_str(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int i, double v) {
    sqlite3_bind_double(stmt_, i, v);
    return *this;
  }
  Statement& bind(int i, int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  Statement& bindNull(int i) {
    sqlite3_bind_null(stmt_, i);
    return *this;
  }
  Statement& bindKey(const TuningKey& k) {
    return bind(1, k.program).bind(2, k.params).bind(3, k.backend).bind(4, k.host).bind(5, k.build);
  }
  /// True while a row is there; throws on an error.
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(db_, sqlite3_errmsg(db_));
  }
  std::string text(int col) const {
    const unsigned char* t = sqlite3_column_text(stmt_, col);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  double real(int col) const { return sqlite3_column_double(stmt_, col); }
  int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }
  bool null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  sqlite3* db() const { return db_; }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

void exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    fail(db, msg);
  }
}

std::string flagsText(const std::map<std::string, std::string>& flags) {
  return nlohmann::json(flags).dump();
}

/// The record of the current row of a SELECT of kColumns.
TuningRecord recordOf(const Statement& s) {
  TuningRecord r;
  r.fusion = s.text(0);
  try {
    r.flags = nlohmann::json::parse(s.text(1)).get<std::map<std::string, std::string>>();
  } catch (const nlohmann::json::exception& e) {
    fail(s.db(), std::string("a record's flags are not this version's: ") + e.what());
  }
  r.schedule = s.text(2);
  r.seconds = s.real(3);
  r.repeat = static_cast<int>(s.integer(4));
  if (!s.null(5)) r.predictedSeconds = s.real(5);
  r.device = s.text(6);
  r.measuredAt = s.text(7);
  return r;
}

constexpr const char* kKeyMatch =
    "program = ?1 AND params = ?2 AND backend = ?3 AND host = ?4 AND build = ?5";

}  // namespace

TuningDb::TuningDb(const std::filesystem::path& path, bool readOnly, int waitMs) : path_(path) {
  std::error_code ec;
  if (!readOnly && path.has_parent_path())
    std::filesystem::create_directories(path.parent_path(), ec);
  const int mode = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  if (sqlite3_open_v2(path.c_str(), &db_, mode, nullptr) != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw std::runtime_error("cannot open the tuning database '" + path.string() + "': " + msg);
  }
  sqlite3_busy_timeout(db_, waitMs);  // another tessel writing: wait rather than fail
  if (readOnly) return;
  try {
    exec(db_,
         "CREATE TABLE IF NOT EXISTS measurements ("
         " program TEXT NOT NULL, params TEXT NOT NULL, backend TEXT NOT NULL,"
         " host TEXT NOT NULL, build TEXT NOT NULL, fusion TEXT NOT NULL, flags TEXT NOT NULL,"
         " schedule TEXT NOT NULL, seconds REAL NOT NULL, repeat INTEGER NOT NULL,"
         " predicted_seconds REAL, device TEXT NOT NULL, measured_at TEXT NOT NULL,"
         " PRIMARY KEY (program, params, backend, host, build, fusion, flags))");
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

TuningDb::~TuningDb() { sqlite3_close(db_); }

std::optional<TuningRecord> TuningDb::find(const TuningKey& key, const std::string& fusion,
                                           const std::map<std::string, std::string>& flags) const {
  Statement s(db_, (std::string("SELECT fusion, flags, schedule, seconds, repeat, "
                                "predicted_seconds, device, measured_at FROM measurements WHERE ") +
                    kKeyMatch + " AND fusion = ?6 AND flags = ?7")
                       .c_str());
  s.bindKey(key).bind(6, fusion).bind(7, flagsText(flags));
  if (!s.step()) return std::nullopt;
  return recordOf(s);
}

void TuningDb::store(const TuningKey& key, const TuningRecord& r) {
  Statement s(db_,
              "INSERT OR REPLACE INTO measurements (program, params, backend, host, build, "
              "fusion, flags, schedule, seconds, repeat, predicted_seconds, device, measured_at) "
              "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
  s.bindKey(key)
      .bind(6, r.fusion)
      .bind(7, flagsText(r.flags))
      .bind(8, r.schedule)
      .bind(9, r.seconds)
      .bind(10, static_cast<int64_t>(r.repeat));
  if (r.predictedSeconds)
    s.bind(11, *r.predictedSeconds);
  else
    s.bindNull(11);
  s.bind(12, r.device).bind(13, r.measuredAt);
  s.step();
}

std::vector<TuningRecord> TuningDb::records(const TuningKey& key) const {
  Statement s(db_, (std::string("SELECT fusion, flags, schedule, seconds, repeat, "
                                "predicted_seconds, device, measured_at FROM measurements WHERE ") +
                    kKeyMatch + " ORDER BY seconds")
                       .c_str());
  s.bindKey(key);
  std::vector<TuningRecord> out;
  while (s.step()) out.push_back(recordOf(s));
  return out;
}

int64_t TuningDb::otherBuilds(const TuningKey& key) const {
  Statement s(db_,
              "SELECT COUNT(*) FROM measurements WHERE program = ?1 AND params = ?2 AND "
              "backend = ?3 AND host = ?4 AND build != ?5");
  s.bindKey(key);
  return s.step() ? s.integer(0) : 0;
}

std::map<std::string, int64_t> TuningDb::otherSettings(const TuningKey& key) const {
  Statement s(db_,
              "SELECT host, COUNT(*) FROM measurements WHERE program = ?1 AND params = ?2 AND "
              "backend = ?3 AND host != ?4 AND build = ?5 GROUP BY host");
  s.bindKey(key);
  std::map<std::string, int64_t> out;
  while (s.step()) out[s.text(0)] = s.integer(1);
  return out;
}

std::filesystem::path defaultTuningDbPath() {
  if (const char* p = std::getenv("TESSEL_TUNING_DB"); p && *p) return p;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return std::filesystem::path(x) / "tessel" / "tuning.db";
  if (const char* h = std::getenv("HOME"); h && *h)
    return std::filesystem::path(h) / ".cache" / "tessel" / "tuning.db";
  return std::filesystem::temp_directory_path() / "tessel-tuning.db";
}

}  // namespace tessel
