// Which families apply the register-level clauses (prefetch, retime, fold, perspective,
// fuse_statements), for the validator's errors and for the command line's family, which leaves
// out the clauses of a `#pragma` it does not apply (language.md section 8: the command line
// overrides the file; a clause the chosen family does not apply is a note).
#include <fmt/format.h>

#include "schedule/schedule.h"

namespace tessel {

bool prefetchApplies(const Schedule& s, const Program& prog) {
  return s.family.value == ScheduleFamily::Stream && streamDim(s, prog) >= 0;
}

bool retimeApplies(const Schedule& s, const Program& prog) {
  const ScheduleFamily f = s.family.value;
  return (f == ScheduleFamily::Stream || f == ScheduleFamily::GlobalStream) &&
         streamDim(s, prog) >= 0;
}

bool foldApplies(const Schedule& s) {
  const ScheduleFamily f = s.family.value;
  return (f == ScheduleFamily::Shared || f == ScheduleFamily::Stream) && !s.retime.value;
}

bool perspectiveApplies(const Schedule& s) {
  return !s.perspective || s.perspective->value == Perspective::Output ||
         s.family.value == ScheduleFamily::Shared;
}

bool fuseStatementsApplies(const Schedule& s) {
  return s.family.value == ScheduleFamily::Global || s.family.value == ScheduleFamily::Stream;
}

void dropFileClausesNotApplied(Schedule& s, const Program& prog) {
  if (!s.family.origin.outsideFile()) return;
  const std::string& who = prog.stencils.at(static_cast<size_t>(s.stencil)).name;
  auto drop = [&](const std::string& clause, const Origin& o, const char* families) {
    s.adjustments.push_back(
        fmt::format("stencil '{}': {} ({}) is left out: it applies to {}, and {} chose '{}'", who,
                    clause, describe(o), families,
                    s.family.origin.kind == Origin::Kind::Model
                        ? fmt::format("the performance model ({})", s.family.origin.flag)
                        : s.family.origin.flag,
                    familyName(s.family.value)));
  };
  auto fromFile = [](const Origin& o) { return o.kind == Origin::Kind::File; };
  if (s.prefetch.value && fromFile(s.prefetch.origin) && !prefetchApplies(s, prog)) {
    drop("prefetch", s.prefetch.origin, "the stream family's kernels");
    s.prefetch = {false, Origin::defaulted()};
  }
  if (s.retime.value && fromFile(s.retime.origin) && !retimeApplies(s, prog)) {
    drop("retime", s.retime.origin, "the stream and global-stream families' kernels");
    s.retime = {false, Origin::defaulted()};
  }
  if (s.fold.value && fromFile(s.fold.origin) && !foldApplies(s)) {
    drop("fold", s.fold.origin,
         s.retime.value ? "the shared and stream families' kernels that are not retimed"
                        : "the shared and stream families' kernels");
    s.fold = {false, Origin::defaulted()};
  }
  if (s.perspective && fromFile(s.perspective->origin) && !perspectiveApplies(s)) {
    drop(s.perspective->value == Perspective::Input ? "perspective input" : "perspective mixed",
         s.perspective->origin, "the shared family's kernels");
    s.perspective.reset();
  }
  if (s.fuseStatements.value && fromFile(s.fuseStatements.origin) && !fuseStatementsApplies(s)) {
    drop("fuse_statements", s.fuseStatements.origin, "the global and stream families' kernels");
    s.fuseStatements = {false, Origin::defaulted()};
  }
}

}  // namespace tessel
