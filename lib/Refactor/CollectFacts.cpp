//===- CollectFacts.cpp - Reading kernels and constants off the AST -------===//
//
// Only the main file is read: declarations elsewhere are not traversed, and
// template instantiations are never visited (the pattern is the source).
// Every site is keyed by its byte offset, so the host and device sides merge.
//
//===----------------------------------------------------------------------===//

#include "ktune/Refactor/Detection.h"

#include "LaunchTemplateArgs.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <map>
#include <memory>
#include <set>

namespace ktune::refactor {
namespace {

using namespace clang;

bool isIdentifier(llvm::StringRef s) {
  if (s.empty() || !(isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_'))
    return false;
  for (char c : s)
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  return true;
}

bool isIntegerLiteralText(llvm::StringRef s) {
  if (s.empty() || !isdigit(static_cast<unsigned char>(s[0])))
    return false;
  for (char c : s)
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '\''))
      return false;
  return true;
}

/// Names that are never tuning knobs: the warp size is fixed by hardware.
bool isFixedByHardware(llvm::StringRef name) {
  std::string n;
  for (char c : name.lower())
    if (c != '_')
      n += c;
  for (const char *fixed : {"warpsize", "threadsperwarp", "warpthreads",
                            "lanesperwarp", "warplanes"})
    if (n.find(fixed) != std::string::npos)
      return true;
  return false;
}

const char *const VectorTypes[] = {
    "float2",  "float4",         "double2",   "int2",       "int4",   "uint2",
    "uint4",   "short2",         "short4",    "char4",      "uchar4", "half2",
    "__half2", "__nv_bfloat162", "longlong2", "ulonglong2", "double4"};

int vectorLanes(llvm::StringRef name) {
  if (name == "__half2" || name == "half2" || name == "__nv_bfloat162")
    return 2;
  return name.back() - '0';
}

/// One spelled constant.
struct Atom {
  Spelling spelling = Spelling::Literal;
  unsigned offset = 0, length = 0;
  std::string text;
  int64_t value = 0;
  std::string constant, constantName;
  const VarDecl *localVar = nullptr; // a local constant: follow its init
  std::string castType;
  /// A constant defined from other constants (`kThreads = kWarps * 32`):
  /// with one base, the use is a site of the base spelled by `replacement`;
  /// with several, `derivedExpr` relates them ("§key=value§" placeholders).
  int derivedBases = 0;
  std::string baseConstant, baseName, replacement, derivedExpr;
  int64_t baseValue = 0;
};

/// How a role expression is read: the role of the sites found in it, and
/// what names mean when it is translated into an expression.
struct RoleCtx {
  std::string role;
  std::string family;
  int dim = -1;
  int boundParam = -1;
  bool top = true;
  bool recordLiterals = true;
  /// Translation only: record nothing, name constants as "§key=value§".
  bool placeholders = false;
  const FunctionDecl *fn = nullptr;
  std::string fnId;
  std::string kernelId; // empty for helpers: attributed later
  /// Launch translation: host variables and expressions that are kernel
  /// arguments, host template parameters passed as kernel template args.
  const std::map<const ValueDecl *, std::string> *varToParam = nullptr;
  const std::map<std::string, std::string> *textToParam = nullptr;
};

class Collector {
public:
  Collector(ASTContext &ctx, std::string file, SourceFacts &out)
      : Ctx(ctx), SM(ctx.getSourceManager()), LO(ctx.getLangOpts()),
        Main(SM.getMainFileID()), File(std::move(file)), Out(out) {
    Buffer = SM.getBufferData(Main);
  }

  void run();

  // --- locations -----------------------------------------------------------
  bool inMainFile(SourceLocation loc) const {
    return loc.isValid() && SM.isInMainFile(SM.getExpansionLoc(loc));
  }

  /// [offset, length) in the main file of the tokens of `range`.
  std::optional<std::pair<unsigned, unsigned>> fileRange(SourceRange range) {
    CharSourceRange r =
        Lexer::makeFileCharRange(CharSourceRange::getTokenRange(range), SM, LO);
    if (r.isInvalid())
      return std::nullopt;
    auto [fid, begin] = SM.getDecomposedLoc(r.getBegin());
    auto [fid2, end] = SM.getDecomposedLoc(r.getEnd());
    if (fid != Main || fid2 != Main || end < begin)
      return std::nullopt;
    return std::pair{begin, end - begin};
  }

  std::optional<unsigned> offsetOf(SourceLocation loc) {
    if (loc.isInvalid())
      return std::nullopt;
    loc = SM.getFileLoc(loc);
    auto [fid, off] = SM.getDecomposedLoc(loc);
    if (fid != Main)
      return std::nullopt;
    return off;
  }

  std::pair<unsigned, unsigned> lineCol(unsigned offset) {
    SourceLocation loc = SM.getComposedLoc(Main, offset);
    return {SM.getSpellingLineNumber(loc), SM.getSpellingColumnNumber(loc)};
  }

  std::string text(unsigned offset, unsigned length) {
    return Buffer.substr(offset, length).str();
  }

  std::string textOf(SourceRange range) {
    if (auto r = fileRange(range))
      return text(r->first, r->second);
    return {};
  }

  std::string note(SourceLocation loc, const std::string &message) {
    auto off = offsetOf(loc);
    if (!off)
      return message;
    auto [l, c] = lineCol(*off);
    return File + ":" + std::to_string(l) + ":" + std::to_string(c) + ": " +
           message;
  }

  // --- functions -----------------------------------------------------------
  const FunctionDecl *definitionOf(const FunctionDecl *fd) {
    if (!fd)
      return nullptr;
    if (const FunctionDecl *p = fd->getTemplateInstantiationPattern())
      fd = p;
    if (const FunctionTemplateDecl *t = fd->getPrimaryTemplate())
      fd = t->getTemplatedDecl();
    const FunctionDecl *def = nullptr;
    if (!fd->hasBody(def) || !def)
      return nullptr;
    if (const FunctionDecl *p = def->getTemplateInstantiationPattern())
      def = p;
    return def;
  }

  std::string idOf(const FunctionDecl *def) {
    auto off = offsetOf(def->getLocation());
    return off ? "fn@" + std::to_string(*off) : std::string();
  }

  bool isKernel(const FunctionDecl *fd) {
    return fd->hasAttr<CUDAGlobalAttr>();
  }
  bool isDeviceHelper(const FunctionDecl *fd) {
    return !isKernel(fd) && fd->hasAttr<CUDADeviceAttr>();
  }

  FunctionFacts &functionFacts(const FunctionDecl *def, FunctionRole role);
  std::string whyCannotTemplate(const FunctionDecl *def);

  // --- atoms and roles ------------------------------------------------------
  std::optional<Atom> classify(const Expr *e, const FunctionDecl *fn);
  std::optional<std::string> walk(const Expr *e, RoleCtx ctx);
  void record(const Atom &a, const RoleCtx &ctx, const std::string &role,
              const std::string &useRole);
  bool isEffectivelyConst(const VarDecl *var, const FunctionDecl *fn);
  void describeDerived(const VarDecl *var, Atom &a);
  std::optional<std::string> translateDims(const Expr *cfg, RoleCtx ctx,
                                           std::vector<std::string> &dims);
  void collectDims(const Expr *e, const FunctionDecl *fn,
                   std::vector<const Expr *> &dims, bool &ok);

  void scanDeviceFunction(const FunctionDecl *def);
  void scanLaunch(const CUDAKernelCallExpr *call, const FunctionDecl *host);

  ASTContext &Ctx;
  SourceManager &SM;
  const LangOptions &LO;
  FileID Main;
  std::string File;
  SourceFacts &Out;
  llvm::StringRef Buffer;
  std::map<std::tuple<unsigned, std::string, std::string>, Occurrence> Occs;
  std::map<std::pair<const FunctionDecl *, const VarDecl *>, bool> ConstCache;
  std::set<const FunctionDecl *> ScannedDevice;
  /// Kernels that are not templates, named other than as a launch's callee
  /// (cudaLaunchKernel((void *)k, ...), helper(k, ...)), with the line.
  std::map<const FunctionDecl *, unsigned> NamedNotLaunched;
  void findKernelsNamedNotLaunched();
};

// --- classification ----------------------------------------------------------

std::optional<Atom> Collector::classify(const Expr *e, const FunctionDecl *fn) {
  if (!e || e->isValueDependent() || e->isTypeDependent())
    return std::nullopt;
  const Expr *s = e->IgnoreParenImpCasts();
  QualType type = s->getType();
  if (type.isNull() || !type->isIntegralOrUnscopedEnumerationType() ||
      type->isBooleanType() || type->isAnyCharacterType())
    return std::nullopt;
  auto range = fileRange(s->getSourceRange());
  if (!range)
    return std::nullopt;
  Expr::EvalResult result;
  if (!s->EvaluateAsInt(result, Ctx))
    return std::nullopt;
  Atom a;
  a.offset = range->first;
  a.length = range->second;
  a.text = text(a.offset, a.length);
  a.value = result.Val.getInt().getExtValue();

  auto castFor = [&](QualType t) -> std::string {
    t = t.getUnqualifiedType();
    if (t->isEnumeralType() || Ctx.hasSameType(t.getCanonicalType(), Ctx.IntTy))
      return {};
    clang::PrintingPolicy p(LO);
    p.SuppressTagKeyword = true;
    return t.getAsString(p);
  };

  if (isIntegerLiteralText(a.text)) {
    a.spelling = Spelling::Literal;
    a.castType = castFor(type);
    return a;
  }
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(s)) {
    const ValueDecl *d = ref->getDecl();
    llvm::StringRef name = d->getName();
    if (!llvm::StringRef(a.text).ends_with(name)) {
      // A macro whose body names the constant: the macro is what is spelled.
      if (!isIdentifier(a.text))
        return std::nullopt;
      a.spelling = Spelling::Macro;
      a.constant = "macro:" + a.text;
      a.constantName = a.text;
      a.castType = castFor(type);
      return a;
    }
    if (const auto *ec = llvm::dyn_cast<EnumConstantDecl>(d)) {
      const auto *en = llvm::dyn_cast<EnumDecl>(ec->getDeclContext());
      if (en && en->isScoped())
        return std::nullopt;
      if (SM.isInSystemHeader(SM.getExpansionLoc(ec->getLocation())))
        return std::nullopt;
      a.spelling = Spelling::Enumerator;
      auto off = SM.getDecomposedExpansionLoc(ec->getLocation());
      a.constant = "enum:" + std::to_string(off.second) + ":" +
                   ec->getQualifiedNameAsString();
      a.constantName = ec->getNameAsString();
      return a;
    }
    if (const auto *var = llvm::dyn_cast<VarDecl>(d)) {
      if (llvm::isa<ParmVarDecl>(var) ||
          SM.isInSystemHeader(SM.getExpansionLoc(var->getLocation())))
        return std::nullopt;
      if (!var->getType().isConstQualified() && !var->isConstexpr() &&
          !(var->isLocalVarDecl() && fn && isEffectivelyConst(var, fn)))
        return std::nullopt;
      a.spelling = Spelling::Variable;
      a.constant = "var:" + var->getQualifiedNameAsString() + "@" +
                   std::to_string(
                       SM.getDecomposedExpansionLoc(var->getLocation()).second);
      a.constantName = var->getNameAsString();
      a.castType = castFor(var->getType());
      if (var->isLocalVarDecl() && var->getInit())
        a.localVar = var;
      else if (var->getInit())
        describeDerived(var, a);
      return a;
    }
    return std::nullopt;
  }
  // A whole expansion of an object-like macro: `BLOCK`, `(128 * 2)`.
  if (isIdentifier(a.text) && s->getBeginLoc().isMacroID()) {
    SourceLocation spelled = SM.getSpellingLoc(s->getBeginLoc());
    if (SM.isInSystemHeader(spelled) || SM.isWrittenInBuiltinFile(spelled))
      return std::nullopt;
    a.spelling = Spelling::Macro;
    a.constant = "macro:" + a.text;
    a.constantName = a.text;
    a.castType = castFor(type);
    return a;
  }
  return std::nullopt;
}

/// Named constants inside an initialiser, outermost first.
static void namedAtomsIn(Collector &c, const Expr *e,
                         std::vector<std::pair<const Expr *, Atom>> &out) {
  if (!e)
    return;
  if (auto atom = c.classify(e, nullptr)) {
    if (atom->spelling != Spelling::Literal)
      out.emplace_back(e, *atom);
    return;
  }
  for (const Stmt *child : e->IgnoreParenImpCasts()->children())
    if (const auto *ce = llvm::dyn_cast_or_null<Expr>(child))
      namedAtomsIn(c, ce, out);
}

void Collector::describeDerived(const VarDecl *var, Atom &a) {
  const Expr *init = var->getInit();
  auto initRange = fileRange(init->IgnoreParenImpCasts()->getSourceRange());
  if (!initRange ||
      isIntegerLiteralText(text(initRange->first, initRange->second)))
    return;
  std::vector<std::pair<const Expr *, Atom>> bases;
  namedAtomsIn(*this, init, bases);
  std::set<std::string> keys;
  for (auto &[e, b] : bases)
    keys.insert(b.constant);
  if (keys.empty())
    return;
  if (keys.size() == 1) {
    // Every appearance of the base inside the initialiser becomes {P}.
    std::string t = text(initRange->first, initRange->second);
    std::string out;
    unsigned pos = initRange->first;
    for (auto &[e, b] : bases) {
      if (b.offset < pos)
        continue;
      out += Buffer.substr(pos, b.offset - pos).str() + "{P}";
      pos = b.offset + b.length;
    }
    out += Buffer.substr(pos, initRange->first + initRange->second - pos).str();
    a.derivedBases = 1;
    a.baseConstant = bases.front().second.constant;
    a.baseName = bases.front().second.constantName;
    a.baseValue = bases.front().second.value;
    a.replacement = out;
    return;
  }
  RoleCtx r;
  r.placeholders = true;
  if (auto t = walk(init, r)) {
    a.derivedBases = static_cast<int>(keys.size());
    a.derivedExpr = *t;
  }
}

/// True when a use of a variable can change it: assigned, incremented, its
/// address taken, bound to a non-const reference, or a member of it
/// assigned. Capturing it by reference in a lambda is not a change by
/// itself (the lambda's body is checked like any other code).
/// A kernel template parameter that selects behaviour rather than sizing
/// work: an enum or bool, or one the kernel compares for (in)equality or
/// switches on. Launch arguments for it are a dispatch, never a knob.
static bool selectsBehaviour(const NamedDecl *param,
                             const FunctionDecl *kernel) {
  const auto *nttp = llvm::dyn_cast<NonTypeTemplateParmDecl>(param);
  if (!nttp)
    return true; // types and templates are never tuning constants
  QualType t = nttp->getType();
  if (t->isEnumeralType() || t->isBooleanType())
    return true;
  struct Compared : RecursiveASTVisitor<Compared> {
    const NamedDecl *Param;
    bool Found = false;
    bool refersToParam(const Expr *e) const {
      const auto *ref = llvm::dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
      return ref && ref->getDecl() == Param;
    }
    bool VisitBinaryOperator(BinaryOperator *b) {
      if (b->isEqualityOp() &&
          (refersToParam(b->getLHS()) || refersToParam(b->getRHS())))
        Found = true;
      return !Found;
    }
    bool VisitSwitchStmt(SwitchStmt *s) {
      if (s->getCond() && refersToParam(s->getCond()))
        Found = true;
      return !Found;
    }
  } compared;
  compared.Param = nttp;
  if (kernel->getBody())
    compared.TraverseStmt(kernel->getBody());
  return compared.Found;
}

static bool mutates(ASTContext &ctx, const DeclRefExpr *ref) {
  const Expr *child = ref;
  for (int depth = 0; depth < 8; ++depth) {
    auto parents = ctx.getParents(*child);
    if (parents.empty())
      return false;
    if (const auto *b = parents[0].get<BinaryOperator>()) {
      if (b->isAssignmentOp() && b->getLHS()->IgnoreParenImpCasts() == child)
        return true;
      return false;
    }
    if (const auto *u = parents[0].get<UnaryOperator>())
      return u->isIncrementDecrementOp() || u->getOpcode() == UO_AddrOf;
    if (const auto *m = parents[0].get<MemberExpr>()) {
      child = m; // `block.x = 1`: keep climbing from the member access
      continue;
    }
    if (const auto *call = parents[0].get<CallExpr>()) {
      const FunctionDecl *callee = call->getDirectCallee();
      if (!callee)
        return !child->getType().isConstQualified() &&
               child->isLValue(); // unknown callee: assume the worst
      for (unsigned i = 0; i < call->getNumArgs() && i < callee->getNumParams();
           ++i)
        if (call->getArg(i)->IgnoreParenImpCasts() == child) {
          QualType t = callee->getParamDecl(i)->getType();
          return t->isReferenceType() &&
                 !t->getPointeeType().isConstQualified();
        }
      return false;
    }
    if (const auto *cast = parents[0].get<ImplicitCastExpr>()) {
      if (cast->getCastKind() == CK_LValueToRValue)
        return false;
      child = cast;
      continue;
    }
    if (const auto *paren = parents[0].get<ParenExpr>()) {
      child = paren;
      continue;
    }
    return false;
  }
  return false;
}

bool Collector::isEffectivelyConst(const VarDecl *var, const FunctionDecl *fn) {
  if (var->getType().isConstQualified() || var->isConstexpr())
    return true;
  if (!fn || !fn->getBody() || !var->getInit())
    return false;
  auto key = std::make_pair(fn, var);
  if (auto it = ConstCache.find(key); it != ConstCache.end())
    return it->second;
  struct Uses : RecursiveASTVisitor<Uses> {
    const VarDecl *Var;
    std::vector<const DeclRefExpr *> Refs;
    bool VisitDeclRefExpr(DeclRefExpr *r) {
      if (r->getDecl() == Var)
        Refs.push_back(r);
      return true;
    }
  } uses;
  uses.Var = var;
  uses.TraverseStmt(fn->getBody());
  bool constant = true;
  for (const DeclRefExpr *r : uses.Refs)
    if (mutates(Ctx, r)) {
      constant = false;
      break;
    }
  ConstCache[key] = constant;
  return constant;
}

void Collector::record(const Atom &a, const RoleCtx &ctx,
                       const std::string &role, const std::string &useRole) {
  if (ctx.placeholders)
    return;
  if (a.spelling != Spelling::Literal && isFixedByHardware(a.constantName))
    return;
  if (a.spelling == Spelling::Literal && a.constant.empty() &&
      (!ctx.recordLiterals || a.value < 2))
    return;
  if (a.value <= 0)
    return;
  auto key = std::make_tuple(a.offset, ctx.fnId, ctx.kernelId);
  auto rank = [](const std::string &r, const std::string &use) {
    const std::string &role = r == "definition" ? use : r;
    if (role == "other" || role.empty())
      return 0;
    if (role == "index_arith" || role == "launch_grid" ||
        role == "launch_smem" || role == "loop_bound")
      return 1;
    if (role == "vector_bytes")
      return 3;
    return 2;
  };
  auto it = Occs.find(key);
  if (it != Occs.end() &&
      rank(role, useRole) <= rank(it->second.role, it->second.useRole))
    return;
  if (it != Occs.end())
    Occs.erase(it); // a more specific role wins
  Occurrence o;
  o.offset = a.offset;
  o.length = a.length;
  auto [l, c] = lineCol(a.offset);
  o.line = l;
  o.col = c;
  o.text = a.text;
  o.function = ctx.fnId;
  o.kernel = ctx.kernelId;
  o.role = role;
  o.useRole = useRole;
  o.value = o.baseValue = a.value;
  o.spelling = a.spelling;
  o.constant = a.constant;
  o.constantName = a.constantName;
  o.family = a.spelling == Spelling::Literal && a.constant.empty()
                 ? ctx.family
                 : std::string();
  o.dim = ctx.dim;
  o.top = ctx.top;
  o.boundParam = ctx.boundParam;
  o.castType = a.castType;
  if (a.derivedBases == 1) {
    o.constant = a.baseConstant;
    o.constantName = a.baseName;
    o.replacement = a.replacement;
    o.baseValue = a.baseValue;
    o.castType.clear();
  } else if (a.derivedBases > 1) {
    o.derivedExpr = a.derivedExpr;
  }
  Occs.emplace(key, std::move(o));
}

/// Records the constants in a role expression and translates it into the
/// expression language (markers for recorded sites). Local constants are
/// followed into their initialisers, as if written inline.
std::optional<std::string> Collector::walk(const Expr *e, RoleCtx ctx) {
  if (!e)
    return std::nullopt;
  if (auto atom = classify(e, ctx.fn)) {
    if (atom->localVar) {
      const Expr *init = atom->localVar->getInit();
      auto inner = classify(init, ctx.fn);
      if (inner && inner->spelling == Spelling::Literal &&
          isIntegerLiteralText(inner->text)) {
        // `constexpr int kTile = 32;`: the definition is the site.
        inner->spelling = Spelling::Variable;
        inner->constant = atom->constant;
        inner->constantName = atom->constantName;
        inner->castType.clear();
        record(*inner, ctx, "definition", ctx.role);
        if (isFixedByHardware(atom->constantName))
          return std::to_string(inner->value);
        return marker(inner->offset);
      }
      auto t = walk(init, ctx);
      if (!t)
        return std::nullopt;
      return "(" + *t + ")";
    }
    if (ctx.placeholders) {
      if (atom->spelling == Spelling::Literal)
        return std::to_string(atom->value);
      return "\xC2\xA7" + atom->constant + "=" + std::to_string(atom->value) +
             "\xC2\xA7";
    }
    record(*atom, ctx, ctx.role, {});
    if (atom->spelling == Spelling::Literal && atom->constant.empty() &&
        (!ctx.recordLiterals || atom->value < 2))
      return std::to_string(atom->value);
    if (atom->spelling != Spelling::Literal &&
        isFixedByHardware(atom->constantName))
      return std::to_string(atom->value);
    return marker(atom->offset);
  }
  // Kernel arguments: the expression the host passes for a parameter.
  if (ctx.textToParam) {
    const Expr *s = e->IgnoreParenImpCasts();
    if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(s))
      if (auto it = ctx.varToParam->find(ref->getDecl());
          it != ctx.varToParam->end())
        return it->second;
    std::string t = textOf(s->getSourceRange());
    if (!t.empty())
      if (auto it = ctx.textToParam->find(t); it != ctx.textToParam->end())
        return it->second;
  }

  const Expr *s = e->IgnoreParenImpCasts();
  if (const auto *p = llvm::dyn_cast<ParenExpr>(s)) // not stripped: keep top
    return walk(p->getSubExpr(), ctx);
  if (const auto *c = llvm::dyn_cast<ExplicitCastExpr>(s)) {
    if (!c->getType()->isIntegralOrEnumerationType())
      return std::nullopt;
    return walk(c->getSubExpr(), ctx);
  }
  if (const auto *lit = llvm::dyn_cast<IntegerLiteral>(s))
    return std::to_string(lit->getValue().getSExtValue());
  if (const auto *sz = llvm::dyn_cast<UnaryExprOrTypeTraitExpr>(s)) {
    Expr::EvalResult r;
    if (!sz->isValueDependent() && sz->EvaluateAsInt(r, Ctx))
      return std::to_string(r.Val.getInt().getExtValue());
    return std::nullopt;
  }
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(s)) {
    if (const auto *nt =
            llvm::dyn_cast<NonTypeTemplateParmDecl>(ref->getDecl()))
      return nt->getNameAsString();
    if (const auto *var = llvm::dyn_cast<VarDecl>(ref->getDecl());
        var && var->isLocalVarDecl() && var->getInit() && ctx.fn &&
        !llvm::isa<ParmVarDecl>(var) && isEffectivelyConst(var, ctx.fn) &&
        var->getType()->isIntegralOrEnumerationType()) {
      // A local computed at run time (`int blocks = (n + 255) / 256;`).
      auto t = walk(var->getInit(), ctx);
      if (!t)
        return std::nullopt;
      return "(" + *t + ")";
    }
    return std::nullopt;
  }
  if (const auto *u = llvm::dyn_cast<UnaryOperator>(s)) {
    RoleCtx inner = ctx;
    inner.top = false;
    auto t = walk(u->getSubExpr(), inner);
    if (!t)
      return std::nullopt;
    switch (u->getOpcode()) {
    case UO_Minus:
      return "(-" + *t + ")";
    case UO_Plus:
      return *t;
    case UO_LNot:
      return "(!" + *t + ")";
    default:
      return std::nullopt;
    }
  }
  if (const auto *b = llvm::dyn_cast<BinaryOperator>(s)) {
    RoleCtx inner = ctx;
    inner.top = false;
    // `16 / sizeof(T)`: a vector width in bytes, wherever it is computed.
    if (b->getOpcode() == BO_Div &&
        llvm::isa<UnaryExprOrTypeTraitExpr>(b->getRHS()->IgnoreParenImpCasts()))
      if (auto atom = classify(b->getLHS(), ctx.fn);
          atom && atom->spelling == Spelling::Literal) {
        RoleCtx bytes = ctx;
        bytes.role = "vector_bytes";
        bytes.family = "vecbytes";
        bytes.top = true;
        walk(b->getLHS(), bytes);
      }
    auto l = walk(b->getLHS(), inner);
    auto r = walk(b->getRHS(), inner);
    if (!l || !r)
      return std::nullopt;
    llvm::StringRef op = b->getOpcodeStr();
    static const std::set<std::string> ops = {
        "+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "&&", "||"};
    if (!ops.count(op.str()))
      return std::nullopt;
    return "(" + *l + " " + op.str() + " " + *r + ")";
  }
  if (const auto *c = llvm::dyn_cast<ConditionalOperator>(s)) {
    RoleCtx inner = ctx;
    inner.top = false;
    auto cond = walk(c->getCond(), inner);
    auto t = walk(c->getTrueExpr(), inner);
    auto f = walk(c->getFalseExpr(), inner);
    if (!cond || !t || !f)
      return std::nullopt;
    return "(" + *cond + " ? " + *t + " : " + *f + ")";
  }
  if (const auto *call = llvm::dyn_cast<CallExpr>(s)) {
    // std::min / std::max / min / max: the bounds stay in the role (caps).
    std::string name;
    if (const FunctionDecl *fd = call->getDirectCallee())
      name = fd->getNameAsString();
    else if (const auto *ule = llvm::dyn_cast<UnresolvedLookupExpr>(
                 call->getCallee()->IgnoreParenImpCasts()))
      name = ule->getName().getAsString();
    if ((name == "min" || name == "max" || name == "fminf" ||
         name == "fmaxf") &&
        call->getNumArgs() == 2) {
      std::string fn = name == "fminf" ? "min" : name == "fmaxf" ? "max" : name;
      auto a = walk(call->getArg(0), ctx);
      auto b = walk(call->getArg(1), ctx);
      if (!a || !b)
        return std::nullopt;
      return fn + "(" + *a + ", " + *b + ")";
    }
    // Still record the constants among the arguments (no translation).
    RoleCtx inner = ctx;
    inner.top = false;
    for (const Expr *arg : call->arguments())
      walk(arg, inner);
    return std::nullopt;
  }
  // Anything else: record what is inside, no translation.
  RoleCtx inner = ctx;
  inner.top = false;
  for (const Stmt *child : s->children())
    if (const auto *ce = llvm::dyn_cast_or_null<Expr>(child))
      walk(ce, inner);
  return std::nullopt;
}

// --- functions
// -----------------------------------------------------------------

std::string Collector::whyCannotTemplate(const FunctionDecl *def) {
  if (def->isMain())
    return "it is main";
  if (auto it = NamedNotLaunched.find(def->getCanonicalDecl());
      it != NamedNotLaunched.end())
    return "it is named on line " + std::to_string(it->second) +
           " other than in a launch, where a template's name would not "
           "name one function";
  if (def->isExternC() || def->isInExternCContext())
    return "it has C linkage (extern \"C\")";
  if (const auto *md = llvm::dyn_cast<CXXMethodDecl>(def)) {
    if (md->isVirtual())
      return "it is a virtual member function";
    if (md->getParent()->isLambda())
      return "it is a lambda";
    if (md->getParent()->isLocalClass())
      return "it is a member of a local class";
    if (llvm::isa<CXXConstructorDecl>(md) || llvm::isa<CXXDestructorDecl>(md) ||
        llvm::isa<CXXConversionDecl>(md))
      return "it is a constructor, destructor or conversion (they take no "
             "explicit template arguments)";
  }
  if (def->isOverloadedOperator())
    return "it is an operator (operators take no explicit template "
           "arguments)";
  if (def->getTemplateSpecializationKind() == TSK_ExplicitSpecialization)
    return "it is an explicit specialisation";
  const FunctionTemplateDecl *t = def->getDescribedFunctionTemplate();
  if (t)
    for (const NamedDecl *p : *t->getTemplateParameters())
      if (p->isTemplateParameterPack())
        return "its template ends in a parameter pack";
  for (const FunctionDecl *r : def->redecls()) {
    if (!inMainFile(r->getLocation()))
      return note(r->getLocation(), "").empty()
                 ? "it is declared outside this file"
                 : "it is declared outside this file (" +
                       SM.getFilename(SM.getExpansionLoc(r->getLocation()))
                           .str() +
                       ")";
    if (r->getBeginLoc().isMacroID() &&
        !SM.isMacroBodyExpansion(r->getBeginLoc()) &&
        !SM.isMacroArgExpansion(r->getBeginLoc()))
      return "it is declared inside a macro";
  }
  return {};
}

FunctionFacts &Collector::functionFacts(const FunctionDecl *def,
                                        FunctionRole role) {
  std::string id = idOf(def);
  auto it = Out.functions.find(id);
  if (it != Out.functions.end()) {
    if (role == FunctionRole::Kernel)
      it->second.role = role;
    return it->second;
  }
  FunctionFacts f;
  f.id = id;
  f.role = role;
  f.name = def->getNameAsString();
  {
    std::string q;
    llvm::raw_string_ostream os(q);
    PrintingPolicy p(LO);
    p.SuppressUnwrittenScope = true;
    p.SuppressInlineNamespace = true;
    def->printQualifiedName(os, p);
    f.qualifiedName = os.str();
  }
  f.offset = *offsetOf(def->getLocation());
  f.line = lineCol(f.offset).first;
  const FunctionTemplateDecl *tmpl = def->getDescribedFunctionTemplate();
  f.isTemplate = tmpl != nullptr;
  if (tmpl) {
    for (const NamedDecl *p : *tmpl->getTemplateParameters()) {
      TemplateParamFacts tp;
      tp.name = p->getNameAsString();
      tp.isPack = p->isTemplateParameterPack();
      if (const auto *t = llvm::dyn_cast<TemplateTypeParmDecl>(p)) {
        tp.type = "typename";
        if (t->hasDefaultArgument())
          tp.defaultText = textOf(t->getDefaultArgument().getSourceRange());
      } else if (const auto *n = llvm::dyn_cast<NonTypeTemplateParmDecl>(p)) {
        std::string spelled =
            textOf(n->getTypeSourceInfo()->getTypeLoc().getSourceRange());
        tp.type = spelled.empty() ? n->getType().getAsString() : spelled;
        if (n->hasDefaultArgument())
          tp.defaultText = textOf(n->getDefaultArgument().getSourceRange());
      } else {
        tp.type = "template";
      }
      f.templateParams.push_back(std::move(tp));
    }
  }
  f.cannotTemplate = whyCannotTemplate(def);
  // Declarations in source order.
  std::vector<const FunctionDecl *> decls(def->redecls_begin(),
                                          def->redecls_end());
  std::sort(decls.begin(), decls.end(), [&](auto *a, auto *b) {
    return SM.isBeforeInTranslationUnit(a->getLocation(), b->getLocation());
  });
  for (const FunctionDecl *d : decls) {
    DeclarationFacts df;
    df.isDefinition = d->doesThisDeclarationHaveABody();
    const FunctionTemplateDecl *dt = d->getDescribedFunctionTemplate();
    std::optional<unsigned> off;
    if (dt) {
      df.hasTemplateList = true;
      df.emptyTemplateList = dt->getTemplateParameters()->size() == 0;
      off = offsetOf(dt->getTemplateParameters()->getRAngleLoc());
    } else {
      off = offsetOf(SM.getExpansionLoc(d->getOuterLocStart()));
    }
    if (!off) {
      if (f.cannotTemplate.empty())
        f.cannotTemplate = "a declaration of it starts outside this file";
      continue;
    }
    df.insertOffset = *off;
    unsigned lineStart = df.insertOffset;
    while (lineStart > 0 && Buffer[lineStart - 1] != '\n')
      --lineStart;
    unsigned i = lineStart;
    while (i < Buffer.size() && (Buffer[i] == ' ' || Buffer[i] == '\t'))
      ++i;
    df.indent = Buffer.substr(lineStart, i - lineStart).str();
    f.declarations.push_back(df);
  }
  if (const auto *body = llvm::dyn_cast_or_null<CompoundStmt>(def->getBody())) {
    if (auto off = offsetOf(body->getLBracLoc()))
      f.bodyBegin = *off + 1;
    if (auto off = offsetOf(body->getRBracLoc()))
      f.rangeEnd = *off + 1;
  }
  // A non-template free host function visible to other files keeps its
  // symbol through a forwarding overload once it becomes a template.
  if (role == FunctionRole::Host && !tmpl && def->isExternallyVisible() &&
      !llvm::isa<CXXMethodDecl>(def) && f.bodyBegin > 0 && !def->isVariadic()) {
    bool named =
        std::all_of(def->param_begin(), def->param_end(),
                    [](const ParmVarDecl *p) { return !p->getName().empty(); });
    for (const auto &d : f.declarations)
      if (d.isDefinition && named && !def->getReturnType()->isUndeducedType())
        f.forwarderSignature =
            llvm::StringRef(
                text(d.insertOffset, f.bodyBegin - 1 - d.insertOffset))
                .rtrim()
                .str();
    f.returnType = def->getReturnType().getAsString();
  }
  f.rangeBegin = f.offset;
  for (const auto &d : f.declarations)
    if (d.isDefinition && !d.hasTemplateList)
      f.rangeBegin = std::min(f.rangeBegin, d.insertOffset);
  if (const FunctionTemplateDecl *t = def->getDescribedFunctionTemplate())
    if (auto off = offsetOf(t->getTemplateParameters()->getTemplateLoc()))
      f.rangeBegin = std::min(f.rangeBegin, *off);
  for (const ParmVarDecl *p : def->parameters()) {
    KernelArg a;
    a.name = p->getNameAsString();
    std::string spelled;
    if (!a.name.empty()) {
      auto begin = offsetOf(p->getBeginLoc());
      auto name = offsetOf(p->getLocation());
      if (begin && name && *name > *begin && !p->getBeginLoc().isMacroID() &&
          !p->getLocation().isMacroID())
        spelled = llvm::StringRef(text(*begin, *name - *begin)).trim().str();
    }
    PrintingPolicy pp(LO);
    pp.SuppressTagKeyword = true;
    a.type = spelled.empty() ? p->getType().getAsString(pp) : spelled;
    f.args.push_back(std::move(a));
  }
  return Out.functions.emplace(id, std::move(f)).first->second;
}

// --- device functions
// ---------------------------------------------------------

/// True when the expression mentions one of CUDA's built-in index variables.
bool mentionsBuiltin(const Expr *e, llvm::StringRef name) {
  if (!e)
    return false;
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(e))
    if (ref->getDecl()->getName() == name)
      return true;
  // blockIdx.x is a property access whose base hides in an opaque value.
  if (const auto *o = llvm::dyn_cast<OpaqueValueExpr>(e))
    return mentionsBuiltin(o->getSourceExpr(), name);
  for (const Stmt *c : e->children())
    if (const auto *ce = llvm::dyn_cast_or_null<Expr>(c))
      if (mentionsBuiltin(ce, name))
        return true;
  return false;
}

class DeviceScanner : public RecursiveASTVisitor<DeviceScanner> {
public:
  DeviceScanner(Collector &c, const FunctionDecl *fn, FunctionFacts &facts,
                std::string kernelId)
      : C(c), Fn(fn), Facts(facts), KernelId(std::move(kernelId)) {}

  RoleCtx ctx(const std::string &role, const std::string &family = "block") {
    RoleCtx r;
    r.role = role;
    r.family = family;
    r.fn = Fn;
    r.fnId = Facts.id;
    r.kernelId = KernelId;
    return r;
  }

  /// Named constants anywhere in the function (role "other" unless a more
  /// specific role claims them); literals only in roles.
  bool TraverseStmt(Stmt *s) {
    if (const auto *e = llvm::dyn_cast_or_null<Expr>(s)) {
      if (auto atom = C.classify(e, Fn)) {
        if (atom->spelling != Spelling::Literal) {
          RoleCtx r = ctx("other");
          r.recordLiterals = false;
          C.walk(e, r);
        } else if (atom->constant.empty()) {
          // Literals in no recognised role: never sites, but a literal
          // group of the same value is less certain.
          C.walk(e, ctx("other", "unlinked"));
        }
        return true;
      }
    }
    return RecursiveASTVisitor::TraverseStmt(s);
  }

  bool VisitVarDecl(VarDecl *var) {
    if (var->hasAttr<CUDASharedAttr>()) {
      SharedArrayFacts arr;
      arr.function = Facts.id;
      arr.name = var->getNameAsString();
      arr.offset = C.offsetOf(var->getLocation()).value_or(0);
      QualType elem = var->getType();
      bool known = true;
      TypeLoc tl = var->getTypeSourceInfo()->getTypeLoc();
      while (auto at = tl.getAsAdjusted<ArrayTypeLoc>()) {
        RoleCtx r = ctx("shared_extent");
        auto t = C.walk(at.getSizeExpr(), r);
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
        C.Out.sharedArrays.push_back(std::move(arr));
      return true;
    }
    if (var->isLocalVarDecl() && !var->isStaticLocal() &&
        var->getTypeSourceInfo()) {
      TypeLoc tl = var->getTypeSourceInfo()->getTypeLoc();
      while (auto at = tl.getAsAdjusted<ArrayTypeLoc>()) {
        const Expr *size = at.getSizeExpr();
        std::string family =
            "items@" +
            std::to_string(C.offsetOf(var->getLocation()).value_or(0));
        if (auto atom = C.classify(size, Fn);
            atom && atom->spelling == Spelling::Literal) {
          RegisterArrays[var].push_back(atom->value);
          family = "ipt";
        }
        C.walk(size, ctx("register_array", family));
        tl = at.getElementLoc();
      }
      // `constexpr int VEC = 16 / sizeof(T);`: the byte width is the knob.
      if (const Expr *init = var->getInit()) {
        const auto *div =
            llvm::dyn_cast<BinaryOperator>(init->IgnoreParenImpCasts());
        if (div && div->getOpcode() == BO_Div &&
            llvm::isa<UnaryExprOrTypeTraitExpr>(
                div->getRHS()->IgnoreParenImpCasts()))
          if (auto atom = C.classify(div->getLHS(), Fn);
              atom && atom->spelling == Spelling::Literal)
            C.walk(div->getLHS(), ctx("vector_bytes", "vecbytes"));
      }
    }
    return true;
  }

  bool VisitForStmt(ForStmt *loop) {
    Loops.push_back(loop);
    if (const Expr *inc = loop->getInc()) {
      inc = inc->IgnoreParenImpCasts();
      if (const auto *ca = llvm::dyn_cast<CompoundAssignOperator>(inc);
          ca &&
          (ca->getOpcode() == BO_AddAssign || ca->getOpcode() == BO_SubAssign))
        C.walk(ca->getRHS(), ctx("loop_stride"));
      else if (const auto *as = llvm::dyn_cast<BinaryOperator>(inc);
               as && as->getOpcode() == BO_Assign)
        if (const auto *add = llvm::dyn_cast<BinaryOperator>(
                as->getRHS()->IgnoreParenImpCasts());
            add && add->getOpcode() == BO_Add)
          C.walk(add->getRHS(), ctx("loop_stride"));
    }
    return true;
  }

  bool VisitAttributedStmt(AttributedStmt *s) {
    for (const Attr *a : s->getAttrs()) {
      const auto *hint = llvm::dyn_cast<LoopHintAttr>(a);
      if (!hint || hint->getOption() != LoopHintAttr::UnrollCount ||
          !hint->getValue())
        continue;
      auto atom = C.classify(hint->getValue(), Fn);
      std::string family = "unroll@" + std::to_string(atom ? atom->offset : 0);
      C.walk(hint->getValue(), ctx("unroll_pragma", family));
    }
    return true;
  }

  bool VisitBinaryOperator(BinaryOperator *b) {
    if (b->getOpcode() == BO_Mul) {
      if (mentionsBuiltin(b->getLHS(), "blockIdx"))
        C.walk(b->getRHS(), ctx("index_arith"));
      else if (mentionsBuiltin(b->getRHS(), "blockIdx"))
        C.walk(b->getLHS(), ctx("index_arith"));
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

  bool mentionsThreadIndex(const Expr *e) {
    if (mentionsBuiltin(e, "threadIdx"))
      return true;
    // A local initialised from threadIdx (`int tid = threadIdx.x;`).
    if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()))
      if (const auto *var = llvm::dyn_cast<VarDecl>(ref->getDecl()))
        return var->getInit() && mentionsBuiltin(var->getInit(), "threadIdx");
    return false;
  }

  bool VisitDeclRefExpr(DeclRefExpr *ref) {
    if (ref->getDecl()->getName() == "warpSize")
      Facts.usesWarpLevelOps = true;
    return true;
  }

  bool VisitCallExpr(CallExpr *call) {
    const Expr *calleeExpr = call->getCallee()->IgnoreParenImpCasts();
    std::string name;
    const FunctionDecl *callee = call->getDirectCallee();
    const FunctionTemplateDecl *calleeTemplate = nullptr;
    if (callee) {
      name = callee->getNameAsString();
    } else if (const auto *ule =
                   llvm::dyn_cast<UnresolvedLookupExpr>(calleeExpr)) {
      name = ule->getName().getAsString();
      for (const NamedDecl *d : ule->decls()) {
        if (const auto *t = llvm::dyn_cast<FunctionTemplateDecl>(d)) {
          callee = t->getTemplatedDecl();
          calleeTemplate = t;
        } else if (const auto *f = llvm::dyn_cast<FunctionDecl>(d)) {
          callee = f;
        }
      }
    }
    llvm::StringRef n(name);
    if (n.starts_with("__shfl") || n.starts_with("__ballot") ||
        n.starts_with("__any_sync") || n.starts_with("__all_sync") ||
        n.starts_with("__reduce_") || n.starts_with("__match_") ||
        n == "__activemask" || n == "__syncwarp" || n == "tiled_partition")
      Facts.usesWarpLevelOps = true;
    if (callee) {
      std::string q = callee->getQualifiedNameAsString();
      if (q.find("cub::") == 0 && q.find("Warp") != std::string::npos)
        Facts.usesWarpLevelOps = true;
    }
    const FunctionDecl *def = C.definitionOf(callee);
    if (!def || !C.inMainFile(def->getLocation()) || !C.isDeviceHelper(def))
      return true;
    C.functionFacts(def, FunctionRole::DeviceHelper);
    std::string calleeId = C.idOf(def);
    if (std::find(Facts.callees.begin(), Facts.callees.end(), calleeId) ==
        Facts.callees.end())
      Facts.callees.push_back(calleeId);
    Helpers.push_back(def);
    C.Out.calls.push_back(callFacts(call, calleeExpr, def, calleeTemplate));
    return true;
  }

  CallFacts callFacts(const CallExpr *call, const Expr *calleeExpr,
                      const FunctionDecl *def,
                      const FunctionTemplateDecl *calleeTemplate) {
    CallFacts cf;
    cf.caller = Facts.id;
    cf.callee = C.idOf(def);
    describeCallee(C, call, calleeExpr, def, cf);
    return cf;
  }

  static void describeCallee(Collector &c, const CallExpr *call,
                             const Expr *calleeExpr, const FunctionDecl *def,
                             CallFacts &cf);

  bool VisitTemplateSpecializationTypeLoc(TemplateSpecializationTypeLoc tl) {
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
        C.walk(arg.getSourceExpression(), ctx("cub_block_size"));
      else if (withItems.count(name.str()))
        C.walk(arg.getSourceExpression(), ctx("cub_items_per_thread", "ipt"));
    }
    return true;
  }

  void vectorType(TypeLoc tl, llvm::StringRef name) {
    bool known = false;
    for (const char *v : VectorTypes)
      known |= name == v;
    if (!known)
      return;
    auto range = C.fileRange(tl.getSourceRange());
    if (!range || !VectorTypeSites.insert(range->first).second)
      return;
    Occurrence o;
    o.offset = range->first;
    o.length = range->second;
    o.text = C.text(o.offset, o.length);
    if (o.text != name)
      return;
    auto [l, col] = C.lineCol(o.offset);
    o.line = l;
    o.col = col;
    o.function = Facts.id;
    o.kernel = KernelId;
    o.role = "vector_type";
    o.replacement = "";
    o.value = o.baseValue = vectorLanes(name);
    o.family = "vectype:" + name.str();
    C.Occs.emplace(std::make_tuple(o.offset, Facts.id, KernelId), o);
  }
  bool VisitTypedefTypeLoc(TypedefTypeLoc tl) {
    vectorType(tl, tl.getTypedefNameDecl()->getName());
    return true;
  }
  bool VisitRecordTypeLoc(RecordTypeLoc tl) {
    vectorType(tl, tl.getDecl()->getName());
    return true;
  }

  /// After the walk: loop bounds of loops that index register arrays.
  void finish() {
    for (const ForStmt *loop : Loops) {
      const auto *cond =
          llvm::dyn_cast_or_null<BinaryOperator>(loop->getCond());
      if (!cond || (cond->getOpcode() != BO_LT && cond->getOpcode() != BO_LE))
        continue;
      const auto *ivRef =
          llvm::dyn_cast<DeclRefExpr>(cond->getLHS()->IgnoreParenImpCasts());
      if (!ivRef)
        continue;
      auto bound = C.classify(cond->getRHS(), Fn);
      if (!bound)
        continue;
      if (bound->spelling != Spelling::Literal) {
        C.walk(cond->getRHS(), ctx("loop_bound"));
        continue;
      }
      // Literal bound: a site when the loop walks a register array of that
      // extent, or, joining a block/tile candidate of its value, when the
      // loop is a strided tile loop (`for (j = 0; j < 32; j += 8)`) or
      // indexes shared memory.
      bool linked = false;
      for (const auto &[arr, extents] : RegisterArrays) {
        if (std::find(extents.begin(), extents.end(), bound->value) ==
                extents.end() ||
            !indexes(loop->getBody(), arr, ivRef->getDecl()))
          continue;
        C.walk(cond->getRHS(), ctx("loop_bound", "ipt"));
        linked = true;
        break;
      }
      if (!linked && (hasConstantStride(loop) ||
                      indexesShared(loop->getBody(), ivRef->getDecl())))
        C.walk(cond->getRHS(), ctx("loop_bound"));
    }
  }

  bool hasConstantStride(const ForStmt *loop) {
    const Expr *inc = loop->getInc();
    if (!inc)
      return false;
    if (const auto *ca =
            llvm::dyn_cast<CompoundAssignOperator>(inc->IgnoreParenImpCasts()))
      if (auto atom = C.classify(ca->getRHS(), Fn))
        return atom->value >= 2;
    return false;
  }

  static bool mentions(const Stmt *s, const ValueDecl *d) {
    if (!s)
      return false;
    if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(s))
      if (ref->getDecl() == d)
        return true;
    for (const Stmt *c : s->children())
      if (mentions(c, d))
        return true;
    return false;
  }

  /// The loop variable appears in a subscript of a __shared__ array.
  static bool indexesShared(const Stmt *s, const ValueDecl *iv) {
    if (!s)
      return false;
    if (const auto *sub = llvm::dyn_cast<ArraySubscriptExpr>(s)) {
      const Expr *base = sub->getBase()->IgnoreParenImpCasts();
      while (const auto *inner = llvm::dyn_cast<ArraySubscriptExpr>(base))
        base = inner->getBase()->IgnoreParenImpCasts();
      if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(base))
        if (ref->getDecl()->hasAttr<CUDASharedAttr>() && mentions(sub, iv))
          return true;
    }
    for (const Stmt *c : s->children())
      if (indexesShared(c, iv))
        return true;
    return false;
  }

  static bool indexes(const Stmt *s, const VarDecl *arr, const ValueDecl *iv) {
    if (!s)
      return false;
    if (const auto *sub = llvm::dyn_cast<ArraySubscriptExpr>(s)) {
      const auto *base =
          llvm::dyn_cast<DeclRefExpr>(sub->getBase()->IgnoreParenImpCasts());
      const auto *idx =
          llvm::dyn_cast<DeclRefExpr>(sub->getIdx()->IgnoreParenImpCasts());
      if (base && idx && base->getDecl() == arr && idx->getDecl() == iv)
        return true;
    }
    for (const Stmt *c : s->children())
      if (indexes(c, arr, iv))
        return true;
    return false;
  }

  Collector &C;
  const FunctionDecl *Fn;
  FunctionFacts &Facts;
  std::string KernelId;
  std::vector<const ForStmt *> Loops;
  std::map<const VarDecl *, std::vector<int64_t>> RegisterArrays;
  std::vector<const FunctionDecl *> Helpers;
  std::set<unsigned> VectorTypeSites;
};

void DeviceScanner::describeCallee(Collector &c, const CallExpr *call,
                                   const Expr *calleeExpr,
                                   const FunctionDecl *def, CallFacts &cf) {
  SourceLocation nameLoc;
  SourceLocation rAngle;
  unsigned explicitCount = 0;
  std::vector<std::string> explicitArgs;
  auto collectExplicit = [&](llvm::ArrayRef<TemplateArgumentLoc> args) {
    for (const auto &a : args)
      explicitArgs.push_back(c.textOf(a.getSourceRange()));
  };
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(calleeExpr)) {
    nameLoc = ref->getLocation();
    if (ref->hasExplicitTemplateArgs()) {
      rAngle = ref->getRAngleLoc();
      explicitCount = ref->getNumTemplateArgs();
      collectExplicit(ref->template_arguments());
    }
  } else if (const auto *ule =
                 llvm::dyn_cast<UnresolvedLookupExpr>(calleeExpr)) {
    nameLoc = ule->getNameLoc();
    if (ule->hasExplicitTemplateArgs()) {
      rAngle = ule->getRAngleLoc();
      explicitCount = ule->getNumTemplateArgs();
      collectExplicit(ule->template_arguments());
    }
  }
  auto nameOff = c.offsetOf(nameLoc);
  cf.offset = nameOff.value_or(0);
  auto [l, col] = c.lineCol(cf.offset);
  cf.line = l;
  cf.col = col;
  cf.explicitArgCount = explicitCount;
  cf.explicitArgs = explicitArgs;
  if (rAngle.isValid()) {
    cf.hasExplicitArgs = true;
    cf.insertOffset = c.offsetOf(rAngle).value_or(0);
  } else if (nameOff) {
    cf.insertOffset = *nameOff + Lexer::MeasureTokenLength(
                                     c.SM.getFileLoc(nameLoc), c.SM, c.LO);
  }
  if (!nameOff || (rAngle.isValid() && !c.offsetOf(rAngle)))
    cf.implicitArgsError = "the call is not spelled in this file";
  if (const FunctionTemplateDecl *t = def->getDescribedFunctionTemplate())
    spellImplicitTemplateArgs(call, t, explicitCount, c.Ctx, cf.implicitArgs,
                              cf.implicitArgsError);
}

void Collector::scanDeviceFunction(const FunctionDecl *def) {
  if (!ScannedDevice.insert(def).second)
    return;
  bool kernel = isKernel(def);
  FunctionFacts &facts = functionFacts(
      def, kernel ? FunctionRole::Kernel : FunctionRole::DeviceHelper);
  std::string kernelId = kernel ? facts.id : std::string();
  DeviceScanner scanner(*this, def, facts, kernelId);

  if (kernel) {
    if (const auto *lb = def->getAttr<CUDALaunchBoundsAttr>()) {
      auto t = walk(lb->getMaxThreads(), scanner.ctx("launch_bounds"));
      if (t)
        Out.launchBounds[facts.id] = *t;
      if (const Expr *minBlocks = lb->getMinBlocks()) {
        auto atom = classify(minBlocks, def);
        walk(minBlocks,
             scanner.ctx("launch_bounds_min_blocks",
                         "minblocks@" +
                             std::to_string(atom ? atom->offset : 0)));
      }
    }
    // Defaults of the kernel's own non-type template parameters.
    if (const FunctionTemplateDecl *t = def->getDescribedFunctionTemplate()) {
      unsigned i = 0;
      for (const NamedDecl *p : *t->getTemplateParameters()) {
        if (const auto *n = llvm::dyn_cast<NonTypeTemplateParmDecl>(p);
            n && n->hasDefaultArgument()) {
          RoleCtx r =
              scanner.ctx("template_default", "targ@" + std::to_string(i));
          r.boundParam = static_cast<int>(i);
          walk(n->getDefaultArgument().getSourceExpression(), r);
        }
        ++i;
      }
    }
  }
  // The function itself, without its template parameter list.
  scanner.TraverseStmt(def->getBody());
  for (const ParmVarDecl *p : def->parameters())
    scanner.TraverseDecl(const_cast<ParmVarDecl *>(p));
  scanner.finish();
  for (const FunctionDecl *h : scanner.Helpers)
    scanDeviceFunction(h);
}

// --- launches
// --------------------------------------------------------------------

void Collector::collectDims(const Expr *e, const FunctionDecl *fn,
                            std::vector<const Expr *> &dims, bool &ok) {
  e = e->IgnoreImplicit();
  if (const auto *m = llvm::dyn_cast<MaterializeTemporaryExpr>(e))
    e = m->getSubExpr()->IgnoreImplicit();
  if (const auto *b = llvm::dyn_cast<CXXBindTemporaryExpr>(e))
    e = b->getSubExpr()->IgnoreImplicit();
  if (const auto *fc = llvm::dyn_cast<CXXFunctionalCastExpr>(e))
    e = fc->getSubExpr()->IgnoreImplicit();
  if (const auto *p = llvm::dyn_cast<ParenExpr>(e))
    return collectDims(p->getSubExpr(), fn, dims, ok);
  if (const auto *ctor = llvm::dyn_cast<CXXConstructExpr>(e)) {
    if (ctor->getNumArgs() == 1 && ctor->getArg(0)->getType()->isRecordType())
      return collectDims(ctor->getArg(0), fn, dims, ok);
    for (const Expr *a : ctor->arguments()) {
      if (llvm::isa<CXXDefaultArgExpr>(a))
        break;
      dims.push_back(a);
    }
    return;
  }
  if (const auto *list = llvm::dyn_cast<InitListExpr>(e)) {
    for (const Expr *a : list->inits())
      dims.push_back(a);
    return;
  }
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(e)) {
    if (ref->getType()->isRecordType()) {
      const auto *var = llvm::dyn_cast<VarDecl>(ref->getDecl());
      if (var && var->isLocalVarDecl() && var->getInit() &&
          isEffectivelyConst(var, fn))
        return collectDims(var->getInit(), fn, dims, ok);
      ok = false;
      return;
    }
  }
  if (e->getType()->isIntegralOrEnumerationType()) {
    dims.push_back(e);
    return;
  }
  ok = false;
}

void Collector::scanLaunch(const CUDAKernelCallExpr *call,
                           const FunctionDecl *host) {
  // A launch spelled in a function-like macro's body: one spelling for
  // every expansion, so nothing in it can become one launcher's parameter.
  if (SourceLocation loc = call->getBeginLoc();
      loc.isMacroID() && SM.isMacroBodyExpansion(loc) &&
      SM.getSLocEntry(SM.getFileID(loc))
          .getExpansion()
          .isFunctionMacroExpansion()) {
    std::string macro = Lexer::getImmediateMacroName(loc, SM, LO).str();
    std::string kernel;
    if (const FunctionDecl *k = call->getDirectCallee())
      kernel = k->getNameAsString() + " ";
    Out.notes.push_back(note(
        call->getBeginLoc(),
        "launch of " + kernel + "inside function-like macro " + macro +
            ": its block size and other constants are not lifted (they "
            "would need a macro parameter); edit the macro or launch outside "
            "it to tune them"));
  }
  const Expr *calleeExpr = call->getCallee()->IgnoreParenImpCasts();
  const FunctionDecl *callee = call->getDirectCallee();
  if (!callee)
    if (const auto *ule = llvm::dyn_cast<UnresolvedLookupExpr>(calleeExpr))
      for (const NamedDecl *d : ule->decls()) {
        const FunctionDecl *f = nullptr;
        if (const auto *t = llvm::dyn_cast<FunctionTemplateDecl>(d))
          f = t->getTemplatedDecl();
        else
          f = llvm::dyn_cast<FunctionDecl>(d);
        if (f && f->hasAttr<CUDAGlobalAttr>())
          callee = f;
      }
  const FunctionDecl *kernel = definitionOf(callee);
  if (!kernel || !inMainFile(kernel->getLocation())) {
    Out.notes.push_back(note(call->getBeginLoc(),
                             "launch of a kernel not defined in this file"));
    return;
  }
  scanDeviceFunction(kernel);
  FunctionFacts &kernelFacts = functionFacts(kernel, FunctionRole::Kernel);
  FunctionFacts &hostFacts = functionFacts(host, FunctionRole::Host);

  CallFacts cf;
  cf.isLaunch = true;
  cf.caller = hostFacts.id;
  cf.callee = kernelFacts.id;
  DeviceScanner::describeCallee(*this, call, calleeExpr, kernel, cf);

  // Kernel arguments as the host spells them.
  std::map<const ValueDecl *, std::string> varToParam;
  std::map<std::string, std::string> textToParam;
  for (unsigned i = 0; i < call->getNumArgs() && i < kernel->getNumParams();
       ++i) {
    std::string param = kernel->getParamDecl(i)->getNameAsString();
    if (param.empty())
      continue;
    const Expr *arg = call->getArg(i)->IgnoreParenImpCasts();
    if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(arg))
      varToParam.emplace(ref->getDecl(), param);
    std::string t = textOf(arg->getSourceRange());
    if (!t.empty())
      textToParam.emplace(t, param);
  }
  // Host template parameters passed as kernel template arguments.
  std::vector<TemplateArgumentLoc> explicitArgs;
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(calleeExpr))
    explicitArgs.assign(ref->template_arguments().begin(),
                        ref->template_arguments().end());
  else if (const auto *ule = llvm::dyn_cast<UnresolvedLookupExpr>(calleeExpr))
    explicitArgs.assign(ule->template_arguments().begin(),
                        ule->template_arguments().end());
  const FunctionTemplateDecl *kt = kernel->getDescribedFunctionTemplate();
  for (unsigned i = 0; i < explicitArgs.size(); ++i) {
    const TemplateArgumentLoc &a = explicitArgs[i];
    if (a.getArgument().getKind() != TemplateArgument::Expression || !kt ||
        i >= kt->getTemplateParameters()->size())
      continue;
    const Expr *e = a.getSourceExpression();
    std::string kernelParam =
        kt->getTemplateParameters()->getParam(i)->getNameAsString();
    if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()))
      if (llvm::isa<NonTypeTemplateParmDecl>(ref->getDecl()))
        varToParam.emplace(ref->getDecl(), kernelParam);
    if (selectsBehaviour(kt->getTemplateParameters()->getParam(i), kernel))
      continue;
    RoleCtx r;
    r.role = "template_arg";
    r.family = "targ@" + std::to_string(i);
    r.boundParam = static_cast<int>(i);
    r.fn = host;
    r.fnId = hostFacts.id;
    r.kernelId = kernelFacts.id;
    walk(e, r);
  }

  RoleCtx base;
  base.fn = host;
  base.fnId = hostFacts.id;
  base.kernelId = kernelFacts.id;
  base.family = "block";
  base.varToParam = &varToParam;
  base.textToParam = &textToParam;
  const CallExpr *config = call->getConfig();
  bool ok = config && config->getNumArgs() >= 2;
  if (!ok)
    cf.geometryError = "the launch configuration is not visible";
  for (int which = 0; config && config->getNumArgs() >= 2 && which < 2;
       ++which) {
    std::vector<const Expr *> dims;
    bool dimsOk = true;
    collectDims(config->getArg(which), host, dims, dimsOk);
    if (!dimsOk || dims.empty() || dims.size() > 3) {
      cf.geometryError = std::string("cannot read the launch's ") +
                         (which == 0 ? "grid" : "block") + " dimensions";
      // Still record what the expression spells.
      RoleCtx r = base;
      r.role = which == 0 ? "launch_grid" : "launch_block";
      walk(config->getArg(which), r);
      ok = false;
      continue;
    }
    auto &target = which == 0 ? cf.grid : cf.block;
    bool complete = true;
    for (unsigned d = 0; d < dims.size(); ++d) {
      RoleCtx r = base;
      r.role = which == 0 ? "launch_grid" : "launch_block";
      r.dim = static_cast<int>(d);
      auto t = walk(dims[d], r);
      if (!t) {
        cf.geometryError = "cannot express " +
                           std::string(which == 0 ? "grid" : "block") +
                           " dimension " + std::to_string(d) +
                           " in kernel arguments and constants";
        complete = false;
      } else {
        target.push_back(*t);
      }
    }
    // Each of grid and block is kept only when all its dimensions are known.
    if (!complete)
      target.clear();
  }
  if (config && config->getNumArgs() >= 3 &&
      !llvm::isa<CXXDefaultArgExpr>(config->getArg(2))) {
    RoleCtx r = base;
    r.role = "launch_smem";
    auto t = walk(config->getArg(2), r);
    if (t)
      cf.smem = *t;
    else if (cf.geometryError.empty())
      cf.geometryError = "cannot express the dynamic shared memory size";
  }
  (void)ok;
  Out.calls.push_back(std::move(cf));
}

class LaunchFinder : public RecursiveASTVisitor<LaunchFinder> {
public:
  LaunchFinder(Collector &c, const FunctionDecl *host) : C(c), Host(host) {}
  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *call) {
    C.scanLaunch(call, Host);
    return true;
  }
  Collector &C;
  const FunctionDecl *Host;
};

/// Visits the main file's function definitions; other files are skipped.
class FunctionFinder : public RecursiveASTVisitor<FunctionFinder> {
public:
  explicit FunctionFinder(Collector &c) : C(c) {}

  bool TraverseDecl(Decl *d) {
    if (!d)
      return true;
    if (!llvm::isa<TranslationUnitDecl>(d) &&
        !C.SM.isInMainFile(C.SM.getExpansionLoc(d->getLocation())) &&
        !llvm::isa<NamespaceDecl>(d) && !llvm::isa<LinkageSpecDecl>(d))
      return true;
    return RecursiveASTVisitor::TraverseDecl(d);
  }

  bool VisitFunctionDecl(FunctionDecl *fd) {
    if (!fd->doesThisDeclarationHaveABody() || fd->isImplicit() ||
        !C.inMainFile(fd->getLocation()))
      return true;
    if (fd->isTemplateInstantiation())
      return true;
    if (const auto *md = llvm::dyn_cast<CXXMethodDecl>(fd);
        md && md->getParent()->isLambda())
      return true;
    if (C.isKernel(fd)) {
      C.scanDeviceFunction(fd);
    }
    // Launches anywhere (host functions, and device code with dynamic
    // parallelism), lambdas included.
    LaunchFinder launches(C, fd);
    launches.TraverseStmt(fd->getBody());
    return true;
  }

  Collector &C;
};

/// Finds references to the main file's non-template kernels that are not
/// the callee of a <<<>>> launch.
class KernelReferenceFinder
    : public RecursiveASTVisitor<KernelReferenceFinder> {
public:
  explicit KernelReferenceFinder(Collector &c) : C(c) {}
  bool TraverseDecl(Decl *d) {
    if (!d)
      return true;
    if (!llvm::isa<TranslationUnitDecl>(d) &&
        !C.SM.isInMainFile(C.SM.getExpansionLoc(d->getLocation())) &&
        !llvm::isa<NamespaceDecl>(d) && !llvm::isa<LinkageSpecDecl>(d))
      return true;
    return RecursiveASTVisitor::TraverseDecl(d);
  }
  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *call) {
    if (const Expr *callee = call->getCallee())
      Callees.insert(callee->IgnoreParenImpCasts());
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *ref) {
    if (Callees.count(ref) || ref->hasExplicitTemplateArgs())
      return true;
    consider(llvm::dyn_cast<FunctionDecl>(ref->getDecl()), ref);
    return true;
  }
  bool VisitUnresolvedLookupExpr(UnresolvedLookupExpr *ule) {
    if (Callees.count(ule) || ule->hasExplicitTemplateArgs())
      return true;
    for (const NamedDecl *d : ule->decls())
      consider(llvm::dyn_cast<FunctionDecl>(d->getUnderlyingDecl()), ule);
    return true;
  }
  void consider(const FunctionDecl *f, const Expr *at) {
    if (!f || !C.isKernel(f) || f->getDescribedFunctionTemplate() ||
        f->isTemplateInstantiation() || !C.inMainFile(f->getLocation()))
      return;
    auto loc = C.SM.getExpansionLoc(at->getBeginLoc());
    C.NamedNotLaunched.try_emplace(f->getCanonicalDecl(),
                                   C.SM.getExpansionLineNumber(loc));
  }
  Collector &C;
  std::set<const Expr *> Callees;
};

void Collector::findKernelsNamedNotLaunched() {
  KernelReferenceFinder finder(*this);
  finder.TraverseDecl(Ctx.getTranslationUnitDecl());
}

void Collector::run() {
  findKernelsNamedNotLaunched();
  FunctionFinder finder(*this);
  finder.TraverseDecl(Ctx.getTranslationUnitDecl());
  for (auto &[key, o] : Occs)
    Out.occurrences.push_back(o);
  std::sort(Out.occurrences.begin(), Out.occurrences.end(),
            [](const Occurrence &a, const Occurrence &b) {
              return std::tie(a.offset, a.kernel, a.role) <
                     std::tie(b.offset, b.kernel, b.role);
            });
}

} // namespace

SourceFacts collectFacts(ASTContext &ctx, const std::string &fileAsGiven) {
  SourceFacts facts;
  facts.file = fileAsGiven;
  Collector c(ctx, fileAsGiven, facts);
  c.run();
  return facts;
}

CandidateSet detectCandidates(ASTContext &ctx, const std::string &fileAsGiven) {
  SourceFacts facts = collectFacts(ctx, fileAsGiven);
  attributeHelperOccurrences(facts);
  return buildCandidates(facts);
}

} // namespace ktune::refactor
