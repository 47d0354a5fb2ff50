#include "codegen/cpp_backend.h"

#include "codegen/dialect.h"
#include "codegen/emitter.h"
#include "lower/lower.h"

namespace tessel {

std::string generateCpp(const Program& prog, PassLog* log) {
  PassLog silent;
  return CLikeEmitter(cppDialect()).emitModule(lowerLoops(prog, log ? *log : silent));
}

}  // namespace tessel
