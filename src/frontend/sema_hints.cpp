// Directives and placement hints (language.md section 8): parsed, validated, recorded.
// They never change what a program computes; later passes read them into a Schedule.
#include <algorithm>
#include <map>

#include "frontend/sema_internal.h"

namespace tessel::sema {

namespace {

const std::vector<std::string>& pragmaClauses() {
  static const std::vector<std::string> c = {
      "stream",   "full_stream", "block",         "unroll",         "time_tile",
      "prefetch", "retime",      "fold",          "occupancy",      "perspective",
      "no_shmem", "index_bits",  "max_registers", "fuse_statements"};
  return c;
}

}  // namespace

Hints Sema::checkHints(const ast::StencilDef& def) {
  Hints h;
  auto iters = prog_.iteratorNames();
  auto isIter = [&](const std::string& n) {
    return std::find(iters.begin(), iters.end(), n) != iters.end();
  };
  auto bad = [&](SourceLoc loc, std::string msg, std::string hint = {}) {
    error(DiagId::bad_directive, loc, std::move(msg), std::move(hint));
  };
  auto positiveInt = [](double v) {
    return v >= 1 && v == static_cast<double>(static_cast<int64_t>(v));
  };

  std::map<std::string, SourceLoc> given;  // clause -> where it was first given
  for (auto& d : def.pragmas) {
    for (auto& c : d.clauses) {
      Hints::Clause out;
      out.name = c.name.text;
      out.loc = c.name.loc;
      const std::string& n = c.name.text;
      // A clause given twice for one stencil (on one `#pragma` line or two) would have the last
      // silently win: an error at the second, the first noted.
      if (auto first = given.find(n); first != given.end()) {
        auto& e = error(DiagId::bad_directive, c.name.loc,
                        fmt::format("'{}' is given twice for stencil '{}'", n, def.name.text),
                        "give each clause once; the command line's flags override a clause");
        e.notes.emplace_back(first->second, "first given here");
        continue;
      }
      given.emplace(n, c.name.loc);
      auto noArgs = c.words.empty() && c.numbers.empty() && c.assignments.empty() && c.list.empty();
      if (std::find(pragmaClauses().begin(), pragmaClauses().end(), n) == pragmaClauses().end()) {
        std::string hint =
            "known clauses: stream, full_stream, block, unroll, time_tile, "
            "prefetch, retime, fold, occupancy, perspective, no_shmem, index_bits, max_registers, "
            "fuse_statements";
        if (auto best = closestName(n, pragmaClauses()))
          hint = fmt::format("did you mean '{}'?", *best);
        bad(c.name.loc, fmt::format("unknown #pragma clause '{}'", n), hint);
        break;  // the rest of this line cannot be read reliably
      }
      if (n == "stream" || n == "full_stream") {
        if (c.words.size() != 1 || !c.numbers.empty()) {
          bad(c.name.loc, fmt::format("'{}' takes one iterator name, e.g. '{} {}'", n, n,
                                      iters.empty() ? "k" : iters.front()));
          continue;
        }
        if (!isIter(c.words[0].text)) {
          std::string hint;
          if (auto best = closestName(c.words[0].text, iters))
            hint = fmt::format("did you mean '{}'?", *best);
          bad(c.words[0].loc, fmt::format("'{}' in '{}' is not an iterator", c.words[0].text, n),
              hint);
          continue;
        }
        out.words.push_back(c.words[0].text);
      } else if (n == "block") {
        if (c.numbers.empty() || c.numbers.size() > 3 || !c.list.empty()) {
          bad(c.name.loc, "'block' takes 1 to 3 positive integers, e.g. 'block (32, 16)'");
          continue;
        }
        bool good = true;
        for (auto& [v, loc] : c.numbers)
          if (!positiveInt(v) || v > 1024) {
            bad(loc, fmt::format("block extent {} must be an integer from 1 to 1024", v));
            good = false;
          }
        if (!good) continue;
        for (auto& [v, _] : c.numbers) out.numbers.push_back(v);
      } else if (n == "unroll") {
        if (c.assignments.empty()) {
          bad(c.name.loc, "'unroll' takes ITERATOR=N pairs, e.g. 'unroll j=2'");
          continue;
        }
        bool good = true;
        for (auto& [name, v] : c.assignments) {
          if (!isIter(name.text)) {
            bad(name.loc, fmt::format("'{}' in 'unroll' is not an iterator", name.text));
            good = false;
          } else if (v < 1) {
            bad(name.loc, fmt::format("unroll factor for '{}' must be at least 1", name.text));
            good = false;
          }
          out.assignments.emplace_back(name.text, v);
        }
        for (auto& w : c.words) out.words.push_back(w.text);
        if (!good) continue;
      } else if (n == "time_tile") {
        if (c.numbers.size() != 1 || !positiveInt(c.numbers[0].first) || c.numbers[0].first > 1e9) {
          bad(c.numbers.empty() ? c.name.loc : c.numbers[0].second,
              "'time_tile' takes one positive integer, e.g. 'time_tile 2'");
          continue;
        }
        out.numbers.push_back(c.numbers[0].first);
      } else if (n == "max_registers") {
        if (c.numbers.size() != 1 || !positiveInt(c.numbers[0].first) ||
            c.numbers[0].first > 65535) {
          bad(c.numbers.empty() ? c.name.loc : c.numbers[0].second,
              "'max_registers' takes one positive integer, registers per thread, e.g. "
              "'max_registers 64' (16 to 255 on the GPUs Tessel knows)");
          continue;
        }
        out.numbers.push_back(c.numbers[0].first);
      } else if (n == "index_bits") {
        if (c.numbers.size() != 1 || (c.numbers[0].first != 32 && c.numbers[0].first != 64)) {
          bad(c.numbers.empty() ? c.name.loc : c.numbers[0].second,
              "'index_bits' takes 32 or 64, e.g. 'index_bits 32'",
              "without the clause Tessel narrows where the sizes of a run allow it");
          continue;
        }
        out.numbers.push_back(c.numbers[0].first);
      } else if (n == "occupancy") {
        if (c.numbers.size() != 1 || c.numbers[0].first <= 0 || c.numbers[0].first > 1) {
          bad(c.numbers.empty() ? c.name.loc : c.numbers[0].second,
              "'occupancy' takes a target t with 0 < t <= 1, e.g. 'occupancy 0.5'");
          continue;
        }
        out.numbers.push_back(c.numbers[0].first);
      } else if (n == "perspective") {
        if (c.words.size() != 1 || (c.words[0].text != "output" && c.words[0].text != "input" &&
                                    c.words[0].text != "mixed")) {
          bad(c.words.empty() ? c.name.loc : c.words[0].loc,
              "'perspective' takes one of output, input, mixed");
          continue;
        }
        out.words.push_back(c.words[0].text);
      } else if (!noArgs) {
        bad(c.name.loc, fmt::format("'{}' takes no arguments", n));
        continue;
      }
      h.clauses.push_back(std::move(out));
    }
  }

  // Placement: body lists and #assign. Unknown names are warnings, like the data lists.
  std::vector<std::string> known;
  for (auto& f : def.formals) known.push_back(f.name.text);
  for (auto& d : def.decls)
    for (auto& v : d.vars) known.push_back(v.name.text);
  for (auto& a : prog_.arrays) known.push_back(a.name);
  auto place = [&](const std::string& kind, const ast::Name& n) {
    if (std::find(known.begin(), known.end(), n.text) == known.end()) {
      std::string hint;
      if (auto best = closestName(n.text, known)) hint = fmt::format("did you mean '{}'?", *best);
      diags_.report(DiagId::unknown_placement_name, n.loc,
                    fmt::format("'{}' in '{}' names no array of stencil '{}'; ignored", n.text,
                                kind, def.name.text),
                    hint);
      return;
    }
    // One array in shared memory and out of it contradicts itself: an error at the second.
    auto named = [&](const std::vector<Hints::Placed>& v) {
      return std::find_if(v.begin(), v.end(),
                          [&](const Hints::Placed& p) { return p.array == n.text; }) != v.end();
    };
    const bool inShared = named(h.shmem), outOfShared = named(h.gmem) || named(h.noShmem);
    if ((kind == "shmem" && outOfShared) || (kind != "shmem" && inShared)) {
      bad(n.loc,
          fmt::format("'{}' is placed both in shared memory and out of it (shmem and {})", n.text,
                      kind == "shmem" ? (named(h.gmem) ? "gmem" : "no_shmem") : kind),
          "keep one placement per array");
      return;
    }
    (kind == "shmem" ? h.shmem : kind == "gmem" ? h.gmem : h.noShmem).push_back({n.text, n.loc});
  };
  for (auto& p : def.placements)
    for (auto& n : p.names) place(p.kind, n);
  for (auto& d : def.assigns) {
    for (auto& c : d.clauses) {
      const std::string& k = c.name.text;
      if (k != "shmem" && k != "gmem" && k != "no_shmem" && k != "no-shmem") {
        bad(c.name.loc, fmt::format("unknown #assign placement '{}'", k),
            "#assign takes shmem (...), gmem (...) and no_shmem (...)");
        continue;
      }
      if (c.list.empty()) {
        bad(c.name.loc, fmt::format("'#assign {}' needs a list of arrays, e.g. {} (a, b)", k, k));
        continue;
      }
      for (auto& n : c.list) place(k == "no-shmem" ? "no_shmem" : k, n);
    }
  }
  return h;
}

}  // namespace tessel::sema
