#include "ir/loop_ir_verify.h"

#include <map>
#include <set>

#include "ir/loop_ir_varying.h"
#include "ir/loop_ir_walk.h"

namespace tessel::lir {

namespace {

class Checker : public StmtVisitor {
 public:
  Checker(const Function& f, const VaryingValues& vary) : vary_(vary) {
    for (auto& p : f.params)
      if (p.pointer || p.slots) buffers_.insert(p.name);
    for (auto& a : f.shared) shared_[a.name] = a.count;
  }
  std::vector<std::string> problems;

 protected:
  void visitFor(const Stmt& s) override {
    bool v = vary_.varyingLoop(s);
    divergent_.push_back(v ? "a loop over '" + s.name + "' whose bounds differ between threads"
                           : "");
    StmtVisitor::visitFor(s);
    divergent_.pop_back();
  }
  void visitIf(const Stmt& s) override {
    visitExpr(s.value);
    divergent_.push_back(vary_.varying(s.value) ? "a condition that differs between threads" : "");
    visitAll(s.body);
    visitAll(s.orElse);
    divergent_.pop_back();
  }
  void visitBlock(const Stmt& s) override {
    if (s.fetch) problems.push_back(marked);
    StmtVisitor::visitBlock(s);
  }
  void visitLeaf(const Stmt& s) override {
    if (s.fetch) problems.push_back(marked);
    if (s.kind == StmtKind::Barrier)
      for (auto& d : divergent_)
        if (!d.empty()) {
          problems.push_back("a barrier inside " + d + ": not every thread reaches it");
          break;
        }
    if (s.kind == StmtKind::LocalDecl && s.pointer) buffers_.insert(s.name);
    if (s.kind == StmtKind::Alloc) buffers_.insert(s.name);
    if (s.kind == StmtKind::Store) access(s.name, s.index, "a store to");
    StmtVisitor::visitLeaf(s);
  }
  void visitExpr(const ExprPtr& e) override {
    if (!e) return;
    tessel::visitExpr(e, [&](const ExprPtr& x) {
      if (x->kind == ExprKind::Load) access(x->name, x->args.at(0), "a load from");
    });
  }

 private:
  void access(const std::string& buffer, const ExprPtr& index, const char* what) {
    auto sh = shared_.find(buffer);
    if (sh == shared_.end()) {
      if (!buffers_.count(buffer))
        problems.push_back(std::string(what) + " '" + buffer + "', which the kernel does not have");
      return;
    }
    if (index && index->kind == ExprKind::IntLit && (index->ival < 0 || index->ival >= sh->second))
      problems.push_back(std::string(what) + " shared array '" + buffer + "' at index " +
                         std::to_string(index->ival) + ", outside its " +
                         std::to_string(sh->second) + " elements");
  }

  static constexpr const char* marked =
      "a plane load marked for pass prefetch-planes, which did not run";
  const VaryingValues& vary_;
  std::set<std::string> buffers_;
  std::map<std::string, int64_t> shared_;
  std::vector<std::string> divergent_;  // per enclosing For/If: why it diverges, or ""
};

}  // namespace

std::vector<std::string> verifyKernel(const Function& f) {
  if (f.linkage != Linkage::Kernel || !f.body) return {};
  VaryingValues vary(f.body);
  Checker check(f, vary);
  check.visit(f.body);
  std::vector<std::string> out;
  for (auto& p : check.problems) out.push_back("kernel '" + f.name + "': " + p);
  return out;
}

}  // namespace tessel::lir
