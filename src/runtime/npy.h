// NumPy .npy files (format versions 1.0, 2.0 and 3.0; C order, little-endian) for array data.
#pragma once

#include <string>

#include "runtime/state.h"

namespace tessel {

/// Reads an .npy file. dtypes: '<f8' Double, '<f4' Float, '<i4' Int, '|b1' Bool; '<i8' is read
/// as Int when every value fits in int32. A 0-d array reads as shape {} with one value. Throws
/// std::runtime_error naming the file and the problem (not .npy, Fortran order, big-endian or
/// unsupported dtype, truncated data).
ArrayData readNpy(const std::string& path);

/// Writes `a` as an .npy file (version 1.0, or 2.0 when the header needs it) with the dtype of
/// a.type. Values are converted to the element type first. Throws
/// std::filesystem::filesystem_error (the path and the system's reason) where the file cannot be
/// written, std::runtime_error where shape and value count disagree.
void writeNpy(const std::string& path, const ArrayData& a);

}  // namespace tessel
