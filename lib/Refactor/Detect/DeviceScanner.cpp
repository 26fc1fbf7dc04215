//===- DeviceScanner.cpp - The roles of constants in device code ----------===//
//
// A kernel or device helper is visited once. Each visit recognises one role
// (a __shared__ extent, a register array, a loop stride, #pragma unroll,
// index arithmetic, a cub block size, a vector type) and walks the
// expression in it; calls of helpers in the main file are followed, and
// warp-level code is noted (it implies `% 32 == 0` block sizes).
//
//===----------------------------------------------------------------------===//

#include "DetectInternal.h"

#include "clang/AST/StmtCXX.h"

#include <algorithm>

namespace ktune::refactor {

using namespace clang;

DeviceScanner::DeviceScanner(DetectContext &c, const FunctionDecl *fn,
                             FunctionFacts &facts, std::string kernelId)
    : C(c), Fn(fn), Facts(facts), KernelId(std::move(kernelId)) {}

RoleCtx DeviceScanner::ctx(SiteRole role, Family family) {
  RoleCtx r;
  r.role = role;
  r.family = std::move(family);
  r.fn = Fn;
  r.fnId = Facts.id;
  r.kernelId = KernelId;
  return r;
}

bool DeviceScanner::TraverseStmt(Stmt *s) {
  if (const auto *e = llvm::dyn_cast_or_null<Expr>(s)) {
    if (auto atom = classify(C, e, Fn)) {
      if (atom->spelling != Spelling::Literal) {
        RoleCtx r = ctx(SiteRole::Other);
        r.recordLiterals = false;
        walk(C, e, r);
      } else if (atom->constant.empty()) {
        // Literals in no recognised role: never sites, but a literal
        // group of the same value is less certain.
        walk(C, e, ctx(SiteRole::Other, Family::unlinked()));
      }
      return true;
    }
  }
  return RecursiveASTVisitor::TraverseStmt(s);
}

/// A static __shared__ array: its extents are sites, and its size in bytes
/// (element size times extents) bounds the tile candidates.
void DeviceScanner::sharedArray(VarDecl *var) {
  SharedArrayFacts arr;
  arr.function = Facts.id;
  arr.name = var->getNameAsString();
  arr.offset = positionOf(C, var->getLocation()).value_or(0);
  QualType elem = var->getType();
  bool known = true;
  TypeLoc tl = var->getTypeSourceInfo()->getTypeLoc();
  while (auto at = tl.getAsAdjusted<ArrayTypeLoc>()) {
    RoleCtx r = ctx(SiteRole::SharedExtent);
    auto t = walk(C, at.getSizeExpr(), r);
    if (t)
      arr.extents.push_back(*t);
    else
      known = false;
    tl = at.getElementLoc();
  }
  while (const auto *a = C.Ctx.getAsArrayType(elem))
    elem = a->getElementType();
  if (!elem->isDependentType() && !elem->isIncompleteType())
    arr.elementSize = C.Ctx.getTypeSizeInChars(elem).getQuantity();
  if (!known)
    arr.extents.clear();
  if (!arr.extents.empty() || var->getType()->isArrayType())
    C.Sink.Facts.sharedArrays.push_back(std::move(arr));
}

/// A local array (items per thread, in registers), and a vector width in
/// bytes in `constexpr int VEC = 16 / sizeof(T);`.
void DeviceScanner::registerArrays(VarDecl *var) {
  TypeLoc tl = var->getTypeSourceInfo()->getTypeLoc();
  while (auto at = tl.getAsAdjusted<ArrayTypeLoc>()) {
    const Expr *size = at.getSizeExpr();
    Family family =
        Family::items(positionOf(C, var->getLocation()).value_or(0));
    if (auto atom = classify(C, size, Fn);
        atom && atom->spelling == Spelling::Literal) {
      RegisterArrays[var].push_back(atom->value);
      family = Family::itemsPerThread();
    }
    walk(C, size, ctx(SiteRole::RegisterArray, family));
    tl = at.getElementLoc();
  }
  // `constexpr int VEC = 16 / sizeof(T);`: the byte width is the knob.
  if (const Expr *init = var->getInit()) {
    const auto *div =
        llvm::dyn_cast<BinaryOperator>(init->IgnoreParenImpCasts());
    if (div && div->getOpcode() == BO_Div &&
        llvm::isa<UnaryExprOrTypeTraitExpr>(
            div->getRHS()->IgnoreParenImpCasts()))
      if (auto atom = classify(C, div->getLHS(), Fn);
          atom && atom->spelling == Spelling::Literal)
        walk(C, div->getLHS(),
             ctx(SiteRole::VectorBytes, Family::vectorBytes()));
  }
}

bool DeviceScanner::VisitVarDecl(VarDecl *var) {
  if (var->hasAttr<CUDASharedAttr>()) {
    sharedArray(var);
    return true;
  }
  if (var->isLocalVarDecl() && !var->isStaticLocal() &&
      var->getTypeSourceInfo())
    registerArrays(var);
  return true;
}

bool DeviceScanner::VisitForStmt(ForStmt *loop) {
  Loops.push_back(loop);
  if (const Expr *inc = loop->getInc()) {
    inc = inc->IgnoreParenImpCasts();
    if (const auto *ca = llvm::dyn_cast<CompoundAssignOperator>(inc);
        ca &&
        (ca->getOpcode() == BO_AddAssign || ca->getOpcode() == BO_SubAssign))
      walk(C, ca->getRHS(), ctx(SiteRole::LoopStride));
    else if (const auto *as = llvm::dyn_cast<BinaryOperator>(inc);
             as && as->getOpcode() == BO_Assign)
      if (const auto *add = llvm::dyn_cast<BinaryOperator>(
              as->getRHS()->IgnoreParenImpCasts());
          add && add->getOpcode() == BO_Add)
        walk(C, add->getRHS(), ctx(SiteRole::LoopStride));
  }
  return true;
}

static void integerLiterals(const Stmt *s,
                            std::vector<const IntegerLiteral *> &out) {
  if (!s)
    return;
  if (const auto *literal = llvm::dyn_cast<IntegerLiteral>(s))
    out.push_back(literal);
  for (const Stmt *child : s->children())
    integerLiterals(child, out);
}

bool DeviceScanner::VisitAttributedStmt(AttributedStmt *s) {
  for (const Attr *a : s->getAttrs()) {
    const auto *hint = llvm::dyn_cast<LoopHintAttr>(a);
    // `#pragma unroll 1` is an Unroll option (disable) with the count kept.
    if (!hint || !hint->getValue() ||
        (hint->getOption() != LoopHintAttr::UnrollCount &&
         hint->getOption() != LoopHintAttr::Unroll))
      continue;
    // A count is one factor, keyed by its literal's place (two pragmas'
    // counts never share one); a count of several literals
    // (`cond ? 4 : 128`) is that many counts.
    auto atom = classify(C, hint->getValue(), Fn);
    std::vector<const IntegerLiteral *> literals;
    integerLiterals(hint->getValue(), literals);
    if (!atom && literals.size() > 1) {
      for (const IntegerLiteral *literal : literals)
        if (auto own = classify(C, literal, Fn))
          walk(C, literal,
               ctx(SiteRole::UnrollPragma, Family::unroll(own->offset)));
      continue;
    }
    if (!atom && literals.size() == 1)
      atom = classify(C, literals.front(), Fn);
    Position at = atom ? atom->offset : Position();
    walk(C, hint->getValue(), ctx(SiteRole::UnrollPragma, Family::unroll(at)));
  }
  return true;
}

bool DeviceScanner::VisitBinaryOperator(BinaryOperator *b) {
  if (b->getOpcode() == BO_Mul) {
    if (mentionsBuiltin(b->getLHS(), "blockIdx"))
      walk(C, b->getRHS(), ctx(SiteRole::IndexArith));
    else if (mentionsBuiltin(b->getRHS(), "blockIdx"))
      walk(C, b->getLHS(), ctx(SiteRole::IndexArith));
  }
  // Lane and warp arithmetic on thread indices: tid % 32, tid & 31,
  // tid / 32, tid >> 5.
  Expr::EvalResult r;
  const Expr *rhs = b->getRHS();
  if (!rhs->isValueDependent() && rhs->EvaluateAsInt(r, C.Ctx)) {
    int64_t v = r.Val.getInt().getExtValue();
    auto op = b->getOpcode();
    if (((op == BO_Rem || op == BO_Div) && v == 32) ||
        (op == BO_And && v == 31) || (op == BO_Shr && v == 5))
      if (mentionsThreadIndex(b->getLHS()))
        Facts.usesWarpLevelOps = true;
  }
  return true;
}

bool DeviceScanner::VisitDeclRefExpr(DeclRefExpr *ref) {
  if (ref->getDecl()->getName() == "warpSize")
    Facts.usesWarpLevelOps = true;
  return true;
}

/// Warp intrinsics, cooperative-groups tiles and cub's warp primitives.
static bool isWarpLevelCall(llvm::StringRef n, const FunctionDecl *callee) {
  if (n.starts_with("__shfl") || n.starts_with("__ballot") ||
      n.starts_with("__any_sync") || n.starts_with("__all_sync") ||
      n.starts_with("__reduce_") || n.starts_with("__match_") ||
      n == "__activemask" || n == "__syncwarp" || n == "tiled_partition")
    return true;
  if (callee) {
    std::string q = callee->getQualifiedNameAsString();
    if (q.find("cub::") == 0 && q.find("Warp") != std::string::npos)
      return true;
  }
  return false;
}

bool DeviceScanner::VisitCallExpr(CallExpr *call) {
  const Expr *calleeExpr = call->getCallee()->IgnoreParenImpCasts();
  std::string name;
  const FunctionDecl *callee = call->getDirectCallee();
  if (callee) {
    name = callee->getNameAsString();
  } else if (const auto *ule =
                 llvm::dyn_cast<UnresolvedLookupExpr>(calleeExpr)) {
    name = ule->getName().getAsString();
    for (const NamedDecl *d : ule->decls()) {
      if (const auto *t = llvm::dyn_cast<FunctionTemplateDecl>(d))
        callee = t->getTemplatedDecl();
      else if (const auto *f = llvm::dyn_cast<FunctionDecl>(d))
        callee = f;
    }
  }
  if (isWarpLevelCall(name, callee))
    Facts.usesWarpLevelOps = true;
  // Helpers are followed in the main file only: a header's helpers are
  // shared utilities, and their bodies are not parsed (BodySkipper,
  // ParseInternal.h).
  const FunctionDecl *def = definitionOf(C, callee);
  if (!def || !C.SM.isInMainFile(C.SM.getExpansionLoc(def->getLocation())) ||
      !isDeviceHelper(C, def))
    return true;
  functionFacts(C, def, FunctionRole::DeviceHelper);
  std::string calleeId = idOf(C, def);
  if (std::find(Facts.callees.begin(), Facts.callees.end(), calleeId) ==
      Facts.callees.end())
    Facts.callees.push_back(calleeId);
  Helpers.push_back(def);
  CallFacts cf;
  cf.caller = Facts.id;
  cf.callee = calleeId;
  describeCallee(C, call, calleeExpr, def, cf);
  C.Sink.call(std::move(cf));
  return true;
}

bool DeviceScanner::VisitTemplateSpecializationTypeLoc(
    TemplateSpecializationTypeLoc tl) {
  const TemplateDecl *td =
      tl.getTypePtr()->getTemplateName().getAsTemplateDecl();
  if (!td)
    return true;
  std::string q = td->getQualifiedNameAsString();
  llvm::StringRef name = td->getName();
  if (q.rfind("cub::", 0) != 0 || !name.starts_with("Block"))
    return true;
  static const std::set<std::string> withItems = {
      "BlockLoad",      "BlockStore",     "BlockExchange",
      "BlockRadixSort", "BlockHistogram", "BlockMergeSort"};
  for (unsigned i = 1; i < tl.getNumArgs() && i <= 2; ++i) {
    TemplateArgumentLoc arg = tl.getArgLoc(i);
    if (arg.getArgument().getKind() != TemplateArgument::Expression)
      continue;
    if (i == 1)
      walk(C, arg.getSourceExpression(), ctx(SiteRole::CubBlockSize));
    else if (withItems.count(name.str()))
      walk(C, arg.getSourceExpression(),
           ctx(SiteRole::CubItemsPerThread, Family::itemsPerThread()));
  }
  return true;
}

/// A vector type used for loads and stores: reported, never rewritten.
void DeviceScanner::vectorType(TypeLoc tl, llvm::StringRef name) {
  if (!isVectorTypeName(name))
    return;
  auto range = fileRange(C, tl.getSourceRange());
  if (!range || !VectorTypeSites.insert(range->first).second)
    return;
  Occurrence o;
  o.offset = range->first;
  o.length = range->second;
  o.text = text(C, o.offset, o.length);
  if (o.text != name)
    return;
  auto [l, col] = lineCol(C, o.offset);
  o.line = l;
  o.col = col;
  o.function = Facts.id;
  o.kernel = KernelId;
  o.role = SiteRole::VectorType;
  o.replacement = "";
  o.value = o.baseValue = vectorLanes(name);
  o.family = Family::vectorType(name.str());
  C.Sink.addOccurrence(std::move(o));
}

bool DeviceScanner::VisitTypedefTypeLoc(TypedefTypeLoc tl) {
  vectorType(tl, tl.getTypedefNameDecl()->getName());
  return true;
}

bool DeviceScanner::VisitRecordTypeLoc(RecordTypeLoc tl) {
  vectorType(tl, tl.getDecl()->getName());
  return true;
}

/// A kernel's __launch_bounds__: the max threads (an expression, for the
/// block-size constraint) and the min blocks per SM.
static void scanLaunchBounds(DetectContext &c, const FunctionDecl *def,
                             DeviceScanner &scanner, const std::string &id) {
  const auto *lb = def->getAttr<CUDALaunchBoundsAttr>();
  if (!lb)
    return;
  auto t = walk(c, lb->getMaxThreads(), scanner.ctx(SiteRole::LaunchBounds));
  if (t)
    c.Sink.Facts.launchBounds[id] = *t;
  if (const Expr *minBlocks = lb->getMinBlocks()) {
    auto atom = classify(c, minBlocks, def);
    walk(c, minBlocks,
         scanner.ctx(SiteRole::LaunchBoundsMinBlocks,
                     Family::minBlocks(atom ? atom->offset : Position())));
  }
}

/// Defaults of the kernel's own non-type template parameters.
static void scanTemplateDefaults(DetectContext &c, const FunctionDecl *def,
                                 DeviceScanner &scanner) {
  const FunctionTemplateDecl *t = def->getDescribedFunctionTemplate();
  if (!t)
    return;
  unsigned i = 0;
  for (const NamedDecl *p : *t->getTemplateParameters()) {
    if (const auto *n = llvm::dyn_cast<NonTypeTemplateParmDecl>(p);
        n && n->hasDefaultArgument()) {
      RoleCtx r =
          scanner.ctx(SiteRole::TemplateDefault, Family::templateArg(i));
      r.boundParam = static_cast<int>(i);
      walk(c, n->getDefaultArgument().getSourceExpression(), r);
    }
    ++i;
  }
}

void scanDeviceFunction(DetectContext &c, const FunctionDecl *def) {
  if (!c.ScannedDevice.insert(def).second)
    return;
  bool kernel = isKernel(c, def);
  FunctionFacts &facts = functionFacts(
      c, def, kernel ? FunctionRole::Kernel : FunctionRole::DeviceHelper);
  std::string kernelId = kernel ? facts.id : std::string();
  DeviceScanner scanner(c, def, facts, kernelId);

  if (kernel) {
    scanLaunchBounds(c, def, scanner, facts.id);
    scanTemplateDefaults(c, def, scanner);
  }
  // The function itself, without its template parameter list.
  scanner.TraverseStmt(def->getBody());
  for (const ParmVarDecl *p : def->parameters())
    scanner.TraverseDecl(const_cast<ParmVarDecl *>(p));
  scanner.finish();
  if (kernel) {
    facts.gridStride = isGridStride(c, def, scanner.Loops);
    analyseRowSplit(c, def, facts);
    analyseRegisterCap(c, def, facts);
    analyseFixableArgs(c, def, facts);
  }
  for (const FunctionDecl *h : scanner.Helpers)
    scanDeviceFunction(c, h);
}

} // namespace ktune::refactor
