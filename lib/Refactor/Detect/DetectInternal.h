//===- DetectInternal.h - The steps of collectFacts -------------*- C++ -*-===//
//
// collectFacts reads one AST in steps, each in its own file:
//
//   CollectFacts.cpp     the traversal of the main file that drives them,
//                        and locations as positions (DetectContext.h)
//   FileTable.cpp        the files positions point into (SourceFacts.h)
//   ConstantAtoms.cpp    what a spelled constant is (literal, macro, ...)
//   DerivedConstants.cpp constants defined from other constants
//   ConstantLocals.cpp   locals that are constants in effect
//   ArchDependence.cpp   constants whose value depends on __CUDA_ARCH__
//   RoleExpressions.cpp  a role expression's constants and its translation
//   FunctionFacts.cpp    kernels, helpers and hosts: names, template lists,
//                        declarations, why one cannot become a template
//   DeviceScanner.cpp    the roles constants play inside device code
//   DeviceLoops.cpp      loop bounds that size register arrays or tiles
//   RowSplit.cpp         whether a kernel's row can be split over blocks
//   RegisterCap.cpp      whether a kernel can take a register cap
//   LaunchForms.cpp      every spelling of a launch, read as a LaunchView
//   LaunchHelpers.cpp    functions that launch the kernel they are given;
//                        why a launch is not followed
//   Dispatches.cpp       runtime values a dispatch turned into constants
//   LaunchScan.cpp       a launch: its kernel, arguments and geometry
//   LaunchCases.cpp      the case of a configuration table a launch is in
//   TemplateParamUses.cpp  a template parameter: behaviour or size
//   Calls.cpp            how a call names its callee (template arguments,
//                        LaunchTemplateArgs.cpp)
//   HostCode.cpp         the main file's host-only functions
//   SourceFacts.cpp      the facts as data: merging both sides
//   SourceFactsJson.cpp  their JSON (--dump-facts)
//
// A detection kind (a new role, a new launch form) is one such file whose
// step is called from the traversal or the device scanner, plus its row in
// the tables of docs/design.md.
//
// Each step is a free function over a DetectContext (DetectContext.h), which
// holds what one traversal knows and the FactSink every finding goes
// through. Nothing here is part of ktune's public API.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_REFACTOR_DETECT_DETECTINTERNAL_H
#define KTUNE_LIB_REFACTOR_DETECT_DETECTINTERNAL_H

#include "DetectContext.h"

#include "ktune/Refactor/Detection.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace clang {
class ExprMutationAnalyzer;
}

namespace ktune::refactor {

// --- spelling ----------------------------------------------------------------

bool isIdentifier(llvm::StringRef s);
/// `256`, `0x100`, `1'024`, `256u`: an integer literal's spelling.
bool isIntegerLiteralText(llvm::StringRef s);
/// Names that are never tuning knobs: the warp size is fixed by hardware.
bool isFixedByHardware(llvm::StringRef name);
/// CUDA's vector types (float4, __half2, ...) and their lane counts.
bool isVectorTypeName(llvm::StringRef name);
int vectorLanes(llvm::StringRef name);

// --- constants and roles -----------------------------------------------------

/// One spelled constant.
struct Atom {
  Spelling spelling = Spelling::Literal;
  Position offset;
  unsigned length = 0;
  std::string text;
  int64_t value = 0;
  std::string constant, constantName;
  const clang::VarDecl *localVar = nullptr; // a local constant: follow its init
  bool shiftOfLiterals = false;             // `1 << 10`: a shift of literals
  std::string castType;
  std::string valueType; // the constant's type (a variable's: declared)
  /// A constant defined from other constants (`kThreads = kWarps * 32`):
  /// with one base, the use is a site of the base spelled by `replacement`;
  /// with several, `derivedExpr` relates them ("§key=value§" placeholders).
  int derivedBases = 0;
  std::string baseConstant, baseName, replacement, derivedExpr;
  std::string valueForm; // Occurrence::valueForm
  int64_t baseValue = 0;
  std::string macroBody;     // Occurrence::macroBody
  std::string before, after; // Occurrence::before/after
  /// A header's constant spelled in a macro's body, shadowed by a local
  /// constant declared at `offset` (the start of the function's body): no
  /// marker names it in the launch's geometry.
  bool shadow = false;
};

struct LaunchDim;

/// How a role expression is read: the role of the sites found in it, and
/// what names mean when it is translated into an expression.
struct RoleCtx {
  SiteRole role = SiteRole::Other;
  Family family;
  /// Where set, only the constants spelled there take `family`.
  std::vector<Position> familyAt;
  int dim = -1;
  int boundParam = -1;
  bool top = true;
  bool recordLiterals = true;
  /// Translation only: record nothing, name constants as "§key=value§".
  bool placeholders = false;
  const clang::FunctionDecl *fn = nullptr;
  std::string fnId;
  std::string kernelId; // empty for helpers: attributed later
  /// Launch translation: host variables and expressions that are kernel
  /// arguments, host template parameters passed as kernel template args.
  const std::map<const clang::ValueDecl *, std::string> *varToParam = nullptr;
  const std::map<std::string, std::string> *textToParam = nullptr;
  /// Launch translation: types passed as the kernel's type template
  /// arguments (as written, sugar included), so `sizeof(c_type)` reads
  /// `sizeof(T)`.
  const std::vector<std::pair<clang::QualType, std::string>> *typeToParam =
      nullptr;
  /// Launch translation: the kernel's parameter names (a launcher parameter
  /// of the same name cannot be named), and where the launcher parameters
  /// the expression names are collected.
  const std::set<std::string> *kernelNames = nullptr;
  std::set<std::string> *hostNames = nullptr;
  /// A direct argument of std::min/std::max: a cap on the role's value,
  /// as strong as the whole expression (`ceil_div(min(1024, d), 32)`).
  bool cap = false;
  /// Literals of this value are not recorded (the 32 lanes of a warp in
  /// `dim3(32, num_warps)`).
  int64_t skipLiteral = 0;
  /// The launch being read (its CallFacts::offset).
  std::optional<Position> launch;
  /// Launch translation of one call of a launcher template (a
  /// LauncherCall): the argument that call gives each of the launcher's
  /// non-type parameters, and the calling function.
  const std::map<const clang::NonTypeTemplateParmDecl *,
                 std::pair<const clang::Expr *, const clang::FunctionDecl *>>
      *callerArgs = nullptr;
  /// Reads of a dim3's field that stand for an earlier value of it.
  const std::map<const clang::Expr *, std::shared_ptr<const LaunchDim>>
      *priors = nullptr;
};

std::vector<ArchRange> archConditionalRanges(llvm::StringRef buffer,
                                             const clang::LangOptions &lo);

/// Why a constant depends on the GPU architecture, and where.
struct ArchReason {
  std::string where; // "file:line:col"
  std::string why;
};

/// True when a use of a variable can change it: assigned, incremented, its
/// address taken, bound to a non-const reference, or a member of it
/// assigned. Capturing it by reference in a lambda is not a change by
/// itself (the lambda's body is checked like any other code).
bool mutates(clang::ASTContext &ctx, const clang::DeclRefExpr *ref);

/// An argument's type as stage 2 reads it: canonical, without top-level
/// qualifiers (`const uint` -> "unsigned int", `int64_t` -> "long"); an
/// enum as its underlying integer, with its name in `enumName`. Nothing
/// for a dependent type.
void canonicalArgType(clang::QualType type, const clang::PrintingPolicy &policy,
                      KernelArg &arg);

/// How a constant's type is spelled for a parameter that replaces it
/// (unqualified; a function-local typedef through to what it names). Empty
/// for int and enums.
std::string typeSpelling(const clang::ASTContext &ctx, clang::QualType t);

/// A type as a cast names it: typeSpelling, with int spelled out.
std::string castSpelling(const clang::ASTContext &ctx, clang::QualType t);

/// The key naming a variable's constant in candidates and plans
/// (`var:` its qualified name `@` the offset of its declaration).
std::string variableKey(const DetectContext &c, const clang::VarDecl *var);

/// The name a call gives its callee: the function's, or the name it looks
/// up when the call is dependent (an UnresolvedLookupExpr); empty for any
/// other callee.
std::string calleeName(const clang::CallExpr *call);

/// The launch API a call names: "cudaLaunchKernelEx", "cudaLaunchKernel",
/// "cudaLaunchCooperativeKernel" (their C and templated forms alike);
/// empty for any other call.
std::string launchApiName(const clang::CallExpr *call);

/// A call of the CUDA runtime that launches a kernel or reads or sets its
/// attributes (cudaLaunch*, cudaFunc*, cudaOccupancy*): it copies its
/// arguments.
bool isCudaRuntimeCall(const clang::CallExpr *call);

/// `ref` is an argument handed to the CUDA runtime (isCudaRuntimeCall), or
/// `&ref` in a `void *args[]` array of kernel arguments. Neither changes it.
bool isLaunchArgumentUse(clang::ASTContext &ctx, const clang::DeclRefExpr *ref);

/// `inner` is `outer` or one of its descendants.
bool within(const clang::Stmt *outer, const clang::Stmt *inner);
/// The block whose statement declares the local `var`, if one does.
const clang::CompoundStmt *declaringBlock(DetectContext &c,
                                          const clang::VarDecl *var);
/// Every reference to `var` in `body`.
std::vector<const clang::DeclRefExpr *> referencesTo(const clang::VarDecl *var,
                                                     const clang::Stmt *body);

/// True when this use of a variable can change it, as
/// clang::ExprMutationAnalyzer sees it over the function's body (assigned,
/// incremented, its address taken, bound to a non-const reference, a member
/// assigned...), except that handing it to a kernel launch and capturing it
/// by reference in a lambda are no change by themselves (the lambda's body
/// is checked like any other code).
bool mutatedAt(clang::ExprMutationAnalyzer &analyzer, clang::ASTContext &ctx,
               const clang::DeclRefExpr *ref);

/// A kernel template parameter that selects behaviour (an enum or bool, or
/// compared for (in)equality or switched on: launch arguments for it are a
/// dispatch), or that sizes work (a loop's bound, an array's extent,
/// __launch_bounds__' threads). TemplateParamUses.cpp.
bool selectsBehaviour(const clang::NamedDecl *p, const clang::FunctionDecl *k);
bool sizesWork(const clang::NamedDecl *p, const clang::FunctionDecl *k);

/// True when the expression mentions one of CUDA's built-in index variables.
bool mentionsBuiltin(const clang::Expr *e, llvm::StringRef name);

struct LaunchView;
/// The case of an if/else-if chain or switch of `host` that `launch` is in:
/// cf.caseTable, caseIndex and caseCondition (LaunchCases.cpp).
void launchCase(DetectContext &c, const clang::Stmt *launch,
                const clang::FunctionDecl *host, CallFacts &cf);

// --- structural parameters (RowSplit.cpp) ------------------------------------
/// Whether kernel `def`'s row can be split over several blocks, into
/// facts.rowSplit (once per kernel and side).
void analyseRowSplit(DetectContext &c, const clang::FunctionDecl *def,
                     FunctionFacts &facts);

/// Whether kernel `def` can take a register cap (a minimum of blocks per
/// SM in its __launch_bounds__), into facts.registerCap (RegisterCap.cpp).
void analyseRegisterCap(DetectContext &c, const clang::FunctionDecl *def,
                        FunctionFacts &facts);

/// The integer arguments of kernel `def` a fixed_arg parameter can set at
/// compile time, and why the others cannot, into facts.fixableArgs
/// (FixedArgs.cpp).
void analyseFixableArgs(DetectContext &c, const clang::FunctionDecl *def,
                        FunctionFacts &facts);
/// For each of a launch's kernel arguments, the parameter of `host` it
/// passes unchanged (an integer `host` never writes), else "".
std::vector<std::string>
launchArgParams(DetectContext &c, const std::vector<const clang::Expr *> &args,
                const clang::FunctionDecl *host);

// --- host code (HostCode.cpp) ------------------------------------------------
/// The main file's host-only functions, into the facts' hostOnlyRanges (on the
/// host side; the device side records none).
void collectHostCode(DetectContext &c);

// --- functions (FunctionFacts.cpp) ------------------------------------------
const clang::FunctionDecl *definitionOf(DetectContext &c,
                                        const clang::FunctionDecl *fd);
std::string idOf(DetectContext &c, const clang::FunctionDecl *def);
bool isKernel(DetectContext &c, const clang::FunctionDecl *fd);
bool isDeviceHelper(DetectContext &c, const clang::FunctionDecl *fd);
/// Host code: no kernel, no device-only function (`__host__ __device__` is).
bool runsOnHost(const clang::FunctionDecl *fd);
FunctionFacts &functionFacts(DetectContext &c, const clang::FunctionDecl *def,
                             FunctionRole role);
std::string whyCannotTemplate(DetectContext &c, const clang::FunctionDecl *def);
void readTemplateParams(DetectContext &c,
                        const clang::FunctionTemplateDecl *tmpl,
                        FunctionFacts &f);
void readDeclarations(DetectContext &c, const clang::FunctionDecl *def,
                      FunctionFacts &f);
void readForwarder(DetectContext &c, const clang::FunctionDecl *def,
                   FunctionFacts &f);
void readArgs(DetectContext &c, const clang::FunctionDecl *def,
              FunctionFacts &f);

// --- constants (ConstantAtoms.cpp, DerivedConstants.cpp, ConstantLocals.cpp) -
std::optional<Atom> classify(DetectContext &c, const clang::Expr *e,
                             const clang::FunctionDecl *fn);
/// A literal token spelled in the body of a function-like macro the main
/// file defines (`dim3 block(std::min(d, 1024));` in a launch macro): its
/// spelling's range, and the macro in `macro`.
std::optional<std::pair<Position, unsigned>>
macroBodyLiteral(DetectContext &c, const clang::Expr *e, std::string &macro);
/// Literals of a macro's body are sites only where every expansion of
/// the macro in the main file lies in a function holding them (each
/// takes the parameter); others are dropped with a note.
void dropUncoveredMacroSites(DetectContext &c);
/// The calls of a host launcher template with explicit template arguments
/// from non-template host functions of the rewritable files.
const std::vector<DetectContext::TemplateCall> &
launcherCalls(DetectContext &c, const clang::FunctionDecl *launcher);
/// A host launcher template's non-type parameter that its only call (in a
/// non-template host function) sets by an explicit template argument: that
/// argument, and the calling function.
std::optional<std::pair<const clang::Expr *, const clang::FunctionDecl *>>
soleCallerArgument(DetectContext &c,
                   const clang::NonTypeTemplateParmDecl *param,
                   const clang::FunctionDecl *launcher);
bool isEffectivelyConst(DetectContext &c, const clang::VarDecl *var,
                        const clang::FunctionDecl *fn);
/// `int threads; ... threads = order < 1024 ? order : 1024;`: a local
/// declared without a value and assigned once, in `fn`'s body itself
/// (no branch or loop), before `use` and never changed again: the value
/// assigned.
/// The one change of local `var` in `fn`'s body, an `=` before `use`.
const clang::BinaryOperator *soleAssignment(DetectContext &c,
                                            const clang::VarDecl *var,
                                            const clang::FunctionDecl *fn,
                                            const clang::DeclRefExpr *use);
const clang::Expr *onlyAssignment(DetectContext &c, const clang::VarDecl *var,
                                  const clang::FunctionDecl *fn,
                                  const clang::DeclRefExpr *use);
/// `int threads = n; if (n > MAX) { ...; threads = MAX; }` before `use`,
/// `threads` changed nowhere else: a cap, min(n, MAX). The bound
/// assigned (null: not this shape), and the if in `branch`.
const clang::Expr *capAssignedInBranch(DetectContext &c,
                                       const clang::VarDecl *var,
                                       const clang::FunctionDecl *fn,
                                       const clang::DeclRefExpr *use,
                                       const clang::IfStmt *&branch);
void describeDerived(DetectContext &c, const clang::VarDecl *var, Atom &a);
/// The same for an object-like macro `macro` whose whole expansion is
/// `e` and whose body names other macros defined as integer literals
/// (`#define THREADS (WARP_COUNT * WARP_SIZE)`): those are its bases.
void describeDerivedMacro(DetectContext &c, const clang::Expr *e,
                          llvm::StringRef macro, Atom &a);
/// Host/device-divergent constants (ArchDependence.cpp): true (and a
/// note) when the named constant `a`, spelled by `e` or declared by `d`,
/// has a value that depends on __CUDA_ARCH__.
bool isArchDependent(DetectContext &c, const Atom &a, const clang::Expr *e,
                     const clang::ValueDecl *d);
std::optional<ArchReason> archDependence(DetectContext &c, const clang::Expr *e,
                                         Position siteBegin, Position siteEnd,
                                         int depth);
std::optional<ArchReason>
archDependentDecl(DetectContext &c, const clang::ValueDecl *d, int depth);
const ArchRange *archRangeAt(DetectContext &c, clang::SourceLocation spelled);
/// Named constants inside an initialiser, outermost first.
void namedAtomsIn(DetectContext &c, const clang::Expr *e,
                  std::vector<std::pair<const clang::Expr *, Atom>> &out);

// --- role expressions (RoleExpressions.cpp) ---------------------------------
/// A launch dimension: an expression (nullptr: 1) or an `if`'s choice.
struct LaunchDim {
  const clang::Expr *value = nullptr, *condition = nullptr;
  std::shared_ptr<const LaunchDim> then, otherwise; // nullptr: 1
  /// `b.x = b.x / 2`: the reads of the field in `value` (`reads`) stand for
  /// its value before (`prior`; nullptr: 1).
  std::vector<const clang::Expr *> reads;
  std::shared_ptr<const LaunchDim> prior;
};
std::optional<std::string> walk(DetectContext &c, const clang::Expr *e,
                                RoleCtx ctx);
std::optional<std::string> walkAtom(DetectContext &c, const Atom &atom,
                                    const RoleCtx &ctx);
/// A launch dim (collectDims); an `if`'s choice is `(cond ? a : b)`.
std::optional<std::string> walkDim(DetectContext &c, const LaunchDim &dim,
                                   const RoleCtx &r);
/// Records a constant of a role expression as an occurrence (through the
/// sink), unless it is no site (a placeholder walk, a literal 0 or 1, the
/// warp size...).
void record(DetectContext &c, const Atom &a, const RoleCtx &ctx, SiteRole role,
            std::optional<SiteRole> useRole);

/// The value an integer local has where `use` reads it, followed from its
/// declaration through the assignments and `if`s that run before (`if (c)
/// t = A; else t = B;` gives `c ? A : B`); false where a path leaves it
/// unset or changes it otherwise (a loop, a switch, a pointer).
bool reachingValue(DetectContext &c, const clang::VarDecl *var,
                   const clang::FunctionDecl *fn, const clang::DeclRefExpr *use,
                   LaunchDim &value);

// --- device code (DeviceScanner.cpp) and launches (LaunchScan.cpp) ----------
void scanDeviceFunction(DetectContext &c, const clang::FunctionDecl *def);
void scanLaunch(DetectContext &c, const LaunchView &launch,
                const clang::FunctionDecl *host);
/// A kernel named in host code other than by a launch (cudaFuncSetAttribute,
/// `auto kernel = K<...>` used elsewhere): an edit point like a launch.
void scanKernelReference(DetectContext &c, const clang::Expr *ref,
                         const clang::FunctionDecl *kernel,
                         const clang::FunctionDecl *host);
/// A launch's grid or block as dims (LaunchDims.cpp); false when unread.
bool collectDims(DetectContext &c, const clang::Expr *e,
                 const clang::FunctionDecl *fn, std::vector<LaunchDim> &dims);
void findKernelsNamedNotLaunched(DetectContext &c);
/// Why a launch of `launched` is not followed into its kernel.
std::string whyNotFollowed(DetectContext &c,
                           const clang::FunctionDecl *launched);

/// How host code names the kernel it launches: the name (a DeclRefExpr or
/// UnresolvedLookupExpr, where template arguments are written) and, when it
/// goes through a local (`auto kernel = K<V, T>;`), that local.
struct KernelName {
  const clang::Expr *ref = nullptr;
  const clang::FunctionDecl *kernel = nullptr;
  const clang::VarDecl *through = nullptr;
};

/// One launch, whatever its spelling (LaunchForms.cpp, LaunchHelpers.cpp).
struct LaunchView {
  const clang::Expr *launch = nullptr;   // the launching expression
  const clang::CallExpr *call = nullptr; // <<<>>>: the kernel call itself
  KernelName named;
  const clang::Expr *grid = nullptr, *block = nullptr, *smem = nullptr;
  std::vector<const clang::Expr *> args; // the kernel's arguments, in order
  CallForm form = CallForm::Chevron;
  bool cooperative = false;
  std::string problem; // why the geometry cannot be read (empty: it can)
  /// The kernel comes from a picker function (pickedKernels), whose
  /// returns name it: they take its template arguments, not the launch.
  bool pickedElsewhere = false;
};

/// The kernel a host expression names: directly, through casts and `&`,
/// or through a local that is never reassigned.
KernelName kernelReference(DetectContext &c, const clang::Expr *e,
                           const clang::FunctionDecl *host);
/// `table[i]<<<...>>>` with `table` a local array, never written, of
/// kernels (`void (*table[8])(...) = {K<1>, K<2>, ...}`): each entry's name,
/// in order; empty for anything else.
std::vector<const clang::Expr *>
kernelTableEntries(DetectContext &c, const clang::Expr *callee,
                   const clang::FunctionDecl *host);
/// `fp kernel = pick(tuning); kernel<<<...>>>` with `kernel` a local never
/// reassigned and `pick` a function of the project whose every return
/// names a kernel (`return k<true>;`): the picker, its call and the names.
struct PickedKernels {
  const clang::FunctionDecl *picker = nullptr;
  const clang::CallExpr *call = nullptr;
  std::vector<const clang::Expr *> entries;
};
PickedKernels pickedKernels(DetectContext &c, const clang::Expr *callee,
                            const clang::FunctionDecl *host);
/// Grid, block and dynamic shared memory from a local cudaLaunchConfig_t:
/// its initialiser list, then assignments to its fields in `host`.
void readLaunchConfig(DetectContext &c, const clang::Expr *configArg,
                      const clang::FunctionDecl *host, LaunchView &view);
std::optional<LaunchView> chevronLaunch(const clang::CUDAKernelCallExpr *call);
/// cudaLaunchKernelEx (templated and C forms), cudaLaunchKernel and
/// cudaLaunchCooperativeKernel; nullopt for other calls.
std::optional<LaunchView> apiLaunch(DetectContext &c,
                                    const clang::CallExpr *call,
                                    const clang::FunctionDecl *host);

/// A function that launches the kernel it is given: its body launches its
/// parameters (`launch_with(kernel, grid, block, stream, args...)` whose
/// body is `kernel<<<grid, block, 0, stream>>>(args...)`, a
/// `cudaLaunchKernel` of them, or a call of another such helper), or,
/// declared here and defined elsewhere, its parameters say so by type and
/// name (`add_node(void *func, dim3 grid_dim, dim3 block_dim, ...)`). The
/// indices of the parameters that carry the kernel, grid, block and dynamic
/// shared memory (-1: none), and the kernel's arguments (a trailing pack
/// from `pack`) where they are known.
struct LaunchHelper {
  int kernel = -1, grid = -1, block = -1, smem = -1, pack = -1;
  std::vector<int> args;
  bool argsKnown = true;
  /// The geometry as fields of a parameter (`p.block_dims` of a launch
  /// parameter struct): the field's name; empty: the parameter itself.
  std::string gridField, blockField, smemField;
};
std::optional<LaunchHelper> launchHelper(DetectContext &c,
                                         const clang::FunctionDecl *fd);
/// A call of a launch helper read as the launch it makes.
std::optional<LaunchView> helperLaunch(DetectContext &c,
                                       const clang::CallExpr *call,
                                       const clang::FunctionDecl *host);
/// The kernel named by `ref` in `fn` can be given template arguments there:
/// it is handed to the CUDA runtime (isCudaRuntimeCall) or to a launch
/// helper, directly or through a local whose every use is.
bool isEditableKernelUse(DetectContext &c, const clang::Expr *ref,
                         const clang::FunctionDecl *fn);

/// A runtime value that a dispatch turned into a constant around a launch:
/// inside `switch (v) { case 16: { constexpr size_t V = 16; ... } }` (or
/// `if (v == 16) {...}`), `v` is `V`.
struct DispatchedValue {
  const clang::ValueDecl *runtime = nullptr;
  const clang::VarDecl *constant = nullptr;
};
std::vector<DispatchedValue> dispatchedValues(DetectContext &c,
                                              const clang::Stmt *at);
/// A constant a dispatch defines, one per case (in a function-like macro's
/// body, or equal to its enclosing case label): data-dependent, no knob.
bool isDispatchedConstant(DetectContext &c, const clang::VarDecl *var);
/// The expression counts warps: it divides by 32 (`ceil_div(n, 32)`,
/// `n / 32`, `n >> 5`), through locals.
bool countsWarps(DetectContext &c, const clang::Expr *e,
                 const clang::FunctionDecl *fn, int depth = 0);
/// ceil_div, div_up, cdiv, ...: names of ceiling division.
bool isCeilDivName(llvm::StringRef name);

/// The function-like macro whose body spells `loc` (through the arguments
/// of other macros; empty: none). Nothing can be inserted there.
std::string macroBodyOf(DetectContext &c, clang::SourceLocation loc);
/// The function-like macro whose body spells the kernel's name `ref` or, for
/// a name passed to a macro, the template arguments the body gives it
/// (kmcuda's `KERNEL_SWITCH(f, ...)` spelling `f<L2, float>__VA_ARGS__`):
/// no template argument can be added to the launch.
std::string calleeMacroOf(DetectContext &c, const clang::Expr *ref);

/// Where a call names its callee and which template arguments it spells
/// (Calls.cpp): the offsets, explicit arguments and implicit ones.
/// `call` is the kernel call (<<<>>>) or a device call, for deducing
/// implicit template arguments; null for other launches and references.
void describeCallee(DetectContext &c, const clang::CallExpr *call,
                    const clang::Expr *calleeExpr,
                    const clang::FunctionDecl *def, CallFacts &cf,
                    bool typesAsWritten = false);

/// The roles constants play in one device function (a kernel or a helper).
class DeviceScanner : public clang::RecursiveASTVisitor<DeviceScanner> {
public:
  DeviceScanner(DetectContext &c, const clang::FunctionDecl *fn,
                FunctionFacts &facts, std::string kernelId);

  RoleCtx ctx(SiteRole role, Family family = Family::block());

  /// Named constants anywhere in the function (role "other" unless a more
  /// specific role claims them); literals only in roles.
  bool TraverseStmt(clang::Stmt *s);
  bool VisitVarDecl(clang::VarDecl *var);
  bool VisitForStmt(clang::ForStmt *loop);
  bool VisitAttributedStmt(clang::AttributedStmt *s);
  bool VisitBinaryOperator(clang::BinaryOperator *b);
  bool VisitDeclRefExpr(clang::DeclRefExpr *ref);
  bool VisitCallExpr(clang::CallExpr *call);
  bool
  VisitTemplateSpecializationTypeLoc(clang::TemplateSpecializationTypeLoc tl);
  bool VisitTypedefTypeLoc(clang::TypedefTypeLoc tl);
  bool VisitRecordTypeLoc(clang::RecordTypeLoc tl);

  /// After the walk: loop bounds of loops that index register arrays or
  /// tiles (DeviceLoops.cpp).
  void finish();
  void chunkLoop(const clang::ForStmt *loop, const clang::VarDecl *iv,
                 const clang::Expr *bound);

  DetectContext &C;
  const clang::FunctionDecl *Fn;
  FunctionFacts &Facts;
  std::string KernelId;
  std::vector<const clang::ForStmt *> Loops;
  std::map<const clang::VarDecl *, std::vector<int64_t>> RegisterArrays;
  std::vector<const clang::FunctionDecl *> Helpers;
  std::set<Position> VectorTypeSites;

private:
  void sharedArray(clang::VarDecl *var);
  void registerArrays(clang::VarDecl *var);
  void vectorType(clang::TypeLoc tl, llvm::StringRef name);
  bool mentionsThreadIndex(const clang::Expr *e);
  bool hasConstantStride(const clang::ForStmt *loop);
};

/// The loop variable appears in a subscript of a __shared__ array.
bool indexesShared(const clang::Stmt *s, const clang::ValueDecl *iv);
/// True when `kernel` computes the same for any grid x size: blockIdx.x
/// and gridDim.x only start and step grid-stride loops (`for (i =
/// blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x *
/// gridDim.x)`), directly or through a constant local, and no helper it
/// calls reads them. `loops`: the kernel's for loops (DeviceScanner::Loops).
bool isGridStride(DetectContext &c, const clang::FunctionDecl *kernel,
                  const std::vector<const clang::ForStmt *> &loops);
/// `arr[iv]` appears in `s`.
bool indexes(const clang::Stmt *s, const clang::VarDecl *arr,
             const clang::ValueDecl *iv);

} // namespace ktune::refactor

#endif
