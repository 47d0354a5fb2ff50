#include "ir/types.h"

namespace tessel {

const char* typeName(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
      return "bool";
    case ScalarType::Int:
      return "int";
    case ScalarType::Float:
      return "float";
    case ScalarType::Double:
      return "double";
  }
  return "?";
}

int typeBytes(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
      return 1;
    case ScalarType::Int:
      return 4;
    case ScalarType::Float:
      return 4;
    case ScalarType::Double:
      return 8;
  }
  return 8;
}

}  // namespace tessel
