// scheduleNotes(): what a user hears about the clauses of a Schedule that the lowering does not
// apply (resolve.h), so that nothing is silently ignored.
#include <fmt/format.h>

#include "analysis/folding.h"
#include "schedule/resolve.h"

namespace tessel {

std::vector<std::string> scheduleNotes(const Program& prog,
                                       const std::vector<Schedule>& schedules) {
  std::vector<std::string> notes;
  for (const Schedule& s : schedules) {
    const std::string who = s.stencil >= 0 && s.stencil < static_cast<int>(prog.stencils.size())
                                ? prog.stencils[s.stencil].name
                                : "?";
    ScheduleFamily f = s.family.value;
    bool overlapped = f == ScheduleFamily::Overlapped;
    notes.insert(notes.end(), s.adjustments.begin(), s.adjustments.end());
    auto note = [&](const std::string& clause, const Origin& o) {
      notes.push_back(fmt::format("stencil '{}': {} ({}) is recorded but not applied yet", who,
                                  clause, describe(o)));
    };
    // Every family applies unroll along the grid's iterators; a streamed iterator is swept.
    const GridShape grid = gridOf(s, prog);
    bool alongStream = false;
    for (auto& [it, n] : s.unroll.value.factors) {
      const bool streamed =
          grid.stream >= 0 && prog.iterators[static_cast<size_t>(grid.stream)].name == it;
      alongStream = alongStream || (n != 1 && streamed);
    }
    if (alongStream)
      notes.push_back(fmt::format(
          "stencil '{}': unroll ({}) along the streamed iterator '{}' is not applied (the sweep "
          "computes one plane at a time; the other factors are)",
          who, describe(s.unroll.origin), prog.iterators[grid.stream].name));
    if (s.timeTile.value > 1 && !overlapped && !streamsTimeTiled(s, prog))
      note(fmt::format("time_tile {}", s.timeTile.value), s.timeTile.origin);
    if (s.fold.value) {
      // Applied where a statement has arrays to fold (analysis/folding.h); say so where none has.
      bool any = false;
      for (const CallInst& call : prog.calls)
        for (const Stmt& st : call.stmts)
          any = any || (call.stencil == s.stencil && !foldStatement(prog, call, st).folds.empty());
      if (!any)
        notes.push_back(fmt::format(
            "stencil '{}': fold ({}): no statement combines two arrays only point-wise (every "
            "access `a[s] op b[s]`, the same subscripts): nothing to fold",
            who, describe(s.fold.origin)));
    }
    // Applied under the staged families, per statement and in stream + time_tile's input rings
    // (schedule_occupancy.cpp); overlapped stages only the values its kernels compute.
    const bool perStatementStaged =
        grid.staged() && (!grid.fusesSteps() || grid.fusedStreamDim() >= 0);
    if (overlapped && (s.occupancy || !s.placements.empty()))
      notes.push_back(fmt::format(
          "stencil '{}': {} ({}) {} not apply to the 'overlapped' family: its shared tiles hold "
          "the values its kernels compute (there is no copy in global memory to read instead), "
          "and the arrays it only reads come from global memory already",
          who, s.occupancy ? "occupancy" : "the placement hints",
          describe(s.occupancy ? s.occupancy->origin : s.placements.front().origin),
          s.occupancy ? "does" : "do"));
    else if (s.occupancy && !perStatementStaged)
      note("occupancy", s.occupancy->origin);
    if (s.noShmem.value && (overlapped || !grid.staged()))
      notes.push_back(
          fmt::format("stencil '{}': no_shmem ({}) does not apply to the '{}' family: {}", who,
                      describe(s.noShmem.origin), familyName(f),
                      overlapped ? "its shared tiles hold the values its kernels compute"
                                 : "it stages nothing in shared memory"));
    for (const PlacementSpec& p : s.placements) {
      if (overlapped) continue;                                // said above
      if (perStatementStaged && p.readFromGlobal()) continue;  // applied
      if (perStatementStaged && p.kind == PlacementKind::Shmem) {
        // The staging analysis stages what is read at offsets; the hint moves nothing there.
        notes.push_back(fmt::format(
            "stencil '{}': the placement of '{}' in shared memory ({}): {}whether it is there is "
            "the staging analysis's choice (an array read at offsets is staged, one read only at "
            "its centre stays in registers)",
            who, p.array, describe(p.origin),
            s.occupancy
                ? fmt::format("the occupancy target never moves '{}' to global memory; ", p.array)
                : ""));
        continue;
      }
      notes.push_back(fmt::format(
          "stencil '{}': the placement of '{}' ({}) does not apply to the '{}' family, which "
          "stages nothing on chip (the 'shared' and 'stream' families apply placements)",
          who, p.array, describe(p.origin), familyName(f)));
    }
    if (overlapped || f == ScheduleFamily::Shared)
      for (auto& c : prog.stencils[s.stencil].hints.clauses)
        if (c.name == "stream" || c.name == "full_stream")
          notes.push_back(fmt::format(
              "stencil '{}': {} {} ({}) does not apply to the {} family (it tiles every "
              "dimension)",
              who, c.name, c.words.empty() ? "" : c.words[0], describe(Origin::file(c.loc)),
              familyName(f)));
    if (f == ScheduleFamily::GlobalStream && s.stream && !s.stream->value.full)
      notes.push_back(fmt::format(
          "stencil '{}': stream {} ({}) runs as full_stream under 'global-stream': each thread "
          "sweeps the whole extent",
          who, s.stream->value.iterator, describe(s.stream->origin)));
    if (f != ScheduleFamily::Stream && s.chunk.origin.kind != Origin::Kind::Default)
      notes.push_back(
          fmt::format("stencil '{}': chunk ({}) applies to the 'stream' schedule "
                      "only, not to '{}'",
                      who, describe(s.chunk.origin), familyName(f)));
    if (f == ScheduleFamily::Stream && s.stream && s.stream->value.full &&
        s.chunk.origin.kind != Origin::Kind::Default)
      notes.push_back(
          fmt::format("stencil '{}': chunk ({}) is not used: full_stream {} sweeps "
                      "every plane in one block",
                      who, describe(s.chunk.origin), s.stream->value.iterator));
  }
  return notes;
}

}  // namespace tessel
