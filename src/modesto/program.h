// MODESTO's stencil programs (paper 002, section 2.2): a set of stencils, each computing one field
// from input fields and earlier stencils' fields at constant offsets, some of whose results leave
// the program (the outputs) while the rest are temporaries. This is the input of the hierarchical
// model (evaluate.h) and of its search over groupings (search.h); from_program.h builds one from
// a Tessel call.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tessel::modesto {

/// At most three dimensions and four tiling levels (a key holds 3 + 3 x 4 coordinates).
inline constexpr int kMaxDims = 3;
inline constexpr int kMaxLevels = 4;

/// An inclusive box of evaluation points.
struct IndexBox {
  std::vector<int64_t> lo, hi;
};

/// One read: field `field` at the evaluation point plus `offset`.
struct Access {
  Access() = default;
  Access(std::string f, std::vector<int64_t> off, std::vector<bool> abs = {})
      : field(std::move(f)), offset(std::move(off)), absolute(std::move(abs)) {}

  std::string field;
  std::vector<int64_t> offset;
  /// Per dimension (empty: none), whether `offset` holds the field's coordinate itself instead
  /// of one relative to the evaluation point: a fixed plane (`src[0][i]` reads coordinate 0), or
  /// 0 along an iterator that a lower-rank array does not follow (`strx[i]` in a 3-D program
  /// reads the elements (0, 0, i)). Only input fields (computed by no stencil) are read so: a
  /// stencil's consumers read it at constant offsets, the dependences MODESTO tiles by.
  std::vector<bool> absolute;
  bool absoluteAt(size_t d) const { return d < absolute.size() && absolute[d]; }
};

/// A stencil `s = (ops, out, in)`: its name is the name of the field it computes.
struct Stencil {
  std::string name;
  double ops = 0;  // floating-point operations per evaluation
  std::vector<Access> in;
  /// Where the stencil may be evaluated. Required for outputs (their evaluation domain);
  /// for a temporary it bounds the points its consumers need (MODESTO derives those).
  std::optional<IndexBox> domain;
};

struct StencilProgram {
  int dims = 0;
  std::vector<Stencil> stencils;     // in a topological order (producers first)
  std::vector<std::string> outputs;  // the stencils whose results leave the program

  /// The stencil computing `field`, or -1 (an input field).
  int producer(const std::string& field) const;
  bool isOutput(int stencil) const;
  /// The input fields (read, computed by no stencil), in order of first read.
  std::vector<std::string> inputFields() const;
  /// The counting engine's index of `field`: its producer, else the stencils' count plus its
  /// place in `inputs` (inputFields()).
  int fieldIndex(const std::string& field, const std::vector<std::string>& inputs) const;
};

/// Throws std::invalid_argument naming the problem: dimensions outside 1..3, offsets of the
/// wrong rank, a stencil read before it is computed or at an absolute coordinate, a field
/// computed twice, an output without a domain or naming no stencil.
void validate(const StencilProgram& p);

}  // namespace tessel::modesto
