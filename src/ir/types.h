// Element and expression types of the language (language.md section 9.9).
#pragma once

#include <string>

namespace tessel {

/// Ordered by width: the type of an expression is the widest operand type.
enum class ScalarType { Bool = 0, Int = 1, Float = 2, Double = 3 };

inline ScalarType widest(ScalarType a, ScalarType b) { return a > b ? a : b; }
inline bool isFloating(ScalarType t) { return t == ScalarType::Float || t == ScalarType::Double; }
const char* typeName(ScalarType t);  // "double", "float", "int", "bool"
/// Size in bytes of one element as stored (bool 1, int 4, float 4, double 8).
int typeBytes(ScalarType t);

}  // namespace tessel
