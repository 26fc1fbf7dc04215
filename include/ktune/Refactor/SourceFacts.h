//===- ktune/Refactor/SourceFacts.h - What the AST says --------*- C++ -*-===//
//
// Detection reads the AST once per compilation side (host, device) and
// records everything later steps need as plain data keyed by *positions*:
// the kernels and device helpers, the calls and launches between them, and
// every spelled constant that could be a tuning knob, with the role it
// plays. Facts from both sides are merged by position; grouping them into
// candidates and rewriting them need no AST.
//
// A Position is a byte in one of the files detection read: the main file
// and the project headers it may rewrite (SourceFacts::files). It packs the
// file's index (top 8 bits; 0 is the main file) and the offset in that file
// (low 24 bits), so code that only compares positions needs no change to
// work across files; makePosition, filePart and localPart are the only ways
// to build or take one apart, marker and functionId the only ways to spell
// one.
//
// Expressions read off the source (launch geometry, shared-memory extents,
// __launch_bounds__) are kept in ktune's expression language with markers
// "@<position>@" standing for the constant spelled at that position, so they
// can later be written in terms of candidates or plan parameters.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_REFACTOR_SOURCEFACTS_H
#define KTUNE_REFACTOR_SOURCEFACTS_H

#include "ktune/Plan/Candidates.h"
#include "ktune/Plan/Manifest.h"

#include "llvm/ADT/StringRef.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::refactor {

// --- positions -----------------------------------------------------------

/// Bits of a position that hold the offset in its file: files of 16 MiB or
/// more are refused, and at most 256 files are read.
inline constexpr unsigned LocalOffsetBits = 24;
inline constexpr unsigned MaxFileBytes = 1u << LocalOffsetBits;
inline constexpr unsigned MaxFiles = 1u << (32 - LocalOffsetBits);

/// A byte of a file detection read, as facts, sites, edits and the sink
/// hold it. It orders, compares and is spelled as its packed value, which
/// it converts to and from implicitly: a position in the main file is its
/// offset there, and facts built by hand are written with offsets.
class Position {
public:
  constexpr Position() = default;
  constexpr Position(unsigned packed) : Packed(packed) {}
  constexpr operator unsigned() const { return Packed; }
  /// `bytes` further on, in the same file.
  constexpr Position &operator+=(unsigned bytes) {
    Packed += bytes;
    return *this;
  }

private:
  unsigned Packed = 0;
};

/// In JSON (--dump-facts), as its packed value.
inline void to_json(nlohmann::json &j, Position position) {
  j = unsigned(position);
}

constexpr Position makePosition(unsigned fileIndex, unsigned localOffset) {
  return fileIndex << LocalOffsetBits | localOffset;
}
/// The index in SourceFacts::files of the file a position is in.
constexpr unsigned filePart(Position position) {
  return unsigned(position) >> LocalOffsetBits;
}
/// The byte offset of a position in its file.
constexpr unsigned localPart(Position position) {
  return unsigned(position) & (MaxFileBytes - 1);
}

/// A file detection read facts from, and may rewrite: the main file (index
/// 0) or a project header (one that --header-filter, or by default the
/// project's include directories, let through; never a system header).
struct SourceFile {
  std::string path;         // as given (main file) or as Clang names it
  std::string absolutePath; // absolute, without `.` and `..`
  /// How the first #include that opened it spelled it ("flashinfer/norm.cuh"),
  /// and the directory it was found under; empty for the main file.
  std::string includedAs;
  std::string foundUnder;
  std::string text; // as parsed
};

enum class FunctionRole { Kernel, DeviceHelper, Host };

struct TemplateParamFacts {
  std::string name;
  /// "typename", or the type of a non-type parameter as spelled ("int").
  std::string type;
  std::optional<std::string> defaultText;
  bool isPack = false;
  /// A kernel's non-type parameter that sizes its work (a loop's bound, an
  /// array's extent, an unroll count, __launch_bounds__): a launch's
  /// argument for it in one case of a configuration table is that case's
  /// knob. Set where a launch passes it.
  bool sizesWork = false;
};

/// One declaration of a function in a file of SourceFacts::files, and how to
/// make it a template (or extend its template parameter list). Offsets here
/// and below are positions.
struct DeclarationFacts {
  /// Existing template: offset of the '>' closing the parameter list.
  /// Otherwise: offset of the first token of the declaration.
  Position insertOffset;
  bool hasTemplateList = false;
  bool emptyTemplateList = false; // `template <>`: an explicit specialisation
  std::string indent;             // leading whitespace of the line
  bool isDefinition = false;
};

/// A use of threadIdx, blockIdx, blockDim or gridDim ("blockDim.x").
struct BuiltinUse {
  unsigned offset = 0; // a position
  unsigned length = 0;
  std::string text;
};

/// A block-stride loop's start and step, [position, length) each: a split
/// starts block s of a row's S at start + step * s and steps by step * S.
struct SplitLoop {
  unsigned start = 0, startLength = 0;
  unsigned step = 0, stepLength = 0;
};

/// Whether a kernel's row can be split over several blocks: its row comes
/// from blockIdx.x, its work over the row is block-stride loops whose
/// iterations are independent, and its threads never communicate. A split
/// by S runs S blocks per row, each taking every S-th iteration of each
/// block-stride loop (blockIdx.x / S is the row).
struct RowSplitFacts {
  bool analysed = false;
  /// Why it cannot be split (empty: it can), "file:line: ..." first.
  std::string refusal;
  /// Positions of the body's '{' and '}'.
  unsigned bodyOpen = 0, bodyClose = 0;
  unsigned bodyLine = 0, bodyCol = 0; // of the '{'
  /// The blockIdx.x and gridDim.x a split rewrites, in source order.
  std::vector<BuiltinUse> uses;
  std::vector<SplitLoop> loops; // in source order
  /// Functions called without a body here (assumed not to communicate;
  /// tuning checks every configuration against the default).
  std::vector<std::string> opaqueCallees;
};

/// Whether a kernel can take a register cap: a minimum of resident blocks
/// per SM in its `__launch_bounds__`, which ptxas turns into a register
/// limit. Kernels whose bounds name no minimum get one inserted before the
/// bounds' ')' (`, MIN_BLOCKS`); kernels without bounds get
/// `__launch_bounds__(MIN_BLOCKS > 0 ? 1024 : 0, MIN_BLOCKS)` before their
/// name (0 and 0 emit no directive at all: the original PTX).
struct RegisterCapFacts {
  bool analysed = false;
  /// Why not (empty: it can), "file:line:col: ..." first.
  std::string refusal;
  unsigned at = 0; // a position: where the text goes
  unsigned line = 0, col = 0;
  /// The kernel has `__launch_bounds__(N)`: the minimum joins it.
  bool extendsBounds = false;
  /// The threads per block the bounds name (1024 where ktune writes them);
  /// 0 when they depend on a template parameter.
  int64_t maxThreads = 0;
};

/// A kernel argument that a fixed_arg parameter can set at compile time
/// (FixedArgs.cpp): an integer passed by value and never written, so the
/// body can read a constant of the same value instead. The definition's
/// parameter is renamed and the body starts with
/// `const decltype(ktune_arg_n) n = FIXED_N != 0 ? FIXED_N : ktune_arg_n;`
/// (0, the default, reads the argument: the original code).
struct FixableArg {
  unsigned index = 0; // among the kernel's parameters
  std::string name;
  std::string type; // the template parameter's: the argument's, unqualified
  /// Why it cannot be fixed (empty: it can), "file:line:col: ..." first.
  std::string refusal;
  unsigned nameAt = 0, nameLength = 0; // positions: the definition's name
  unsigned bodyOpen = 0;               // the body's '{'
  unsigned line = 0, col = 0;          // of the name
};

struct FunctionFacts {
  std::string id; // "fn@<position of the name>" (functionId)
  FunctionRole role = FunctionRole::Host;
  std::string name;          // unqualified
  std::string qualifiedName; // without anonymous namespaces
  unsigned line = 0;         // of the name
  Position offset;           // of the name
  bool isTemplate = false;
  std::vector<TemplateParamFacts> templateParams;
  std::vector<DeclarationFacts> declarations; // source order
  Position bodyBegin;                         // just after the body's '{'
  /// Text of the function's declarations: from the first declaration's
  /// start to the end of the definition's body.
  Position rangeBegin, rangeEnd;
  /// Why template parameters cannot be added (empty: they can).
  std::string cannotTemplate;
  std::vector<KernelArg> args;
  /// The parameter types as Clang prints them (for an explicit
  /// instantiation's declarator).
  std::vector<std::string> paramTypes;
  /// At namespace scope (a kernel there can be instantiated explicitly
  /// right after its definition).
  bool atNamespaceScope = false;
  /// Host functions with external linkage that are not templates: their
  /// declaration text up to the body, for a forwarding overload that keeps
  /// the original symbol (callers in other files still link).
  std::string forwarderSignature;
  /// How the forwarder qualifies the template it calls ("::", "::ns::")
  /// where another namespace declares a function of the same name (which
  /// `using namespace` would make a candidate too); empty where there is
  /// none, or it cannot be named so (an anonymous namespace, a class).
  std::string forwarderQualifier;
  std::string returnType;
  /// A host function with C linkage (extern "C"): only its definition
  /// becomes a template, inside `extern "C++" {}`, and the forwarder keeps
  /// the C symbol its other declarations name.
  bool cLinkage = false;
  /// The name the template takes where the function's own must stay a
  /// plain function's (`main` becomes `ktune_main`, and `main` forwards to
  /// it); empty: its own.
  std::string templateName;
  /// The body ends in a return statement (a renamed `main` that does not
  /// gets `return 0;`, which `main` alone may leave out).
  bool endsWithReturn = false;
  /// A virtual member defined in its class: its template (templateName)
  /// drops the specifiers at templateDrops (`virtual`, `override`,
  /// `final`: [position, length) each); its callers call it as it is.
  bool isVirtual = false;
  std::vector<std::pair<Position, unsigned>> templateDrops;
  /// A member function defined out of its class, where a member template of
  /// its own name would break the symbol other files call (`void
  /// Cls::f(...) {...}`, or `template <typename T> void Cls<T>::f(...)
  /// {...}` in another file than the class): its body moves to a member
  /// template (templateName) that the class declares after its declaration
  /// of the function, ending at memberDeclarationEnd (memberDeclaration:
  /// that declaration named as the template, memberDeclarationIndent its
  /// line's indentation); the function forwards its defaults and its
  /// callers call it as it is.
  bool outOfClassMember = false;
  Position memberDeclarationEnd = 0;
  std::string memberDeclaration, memberDeclarationIndent;
  /// Warp-level code (__shfl*, votes, warp reductions, 32-lane arithmetic).
  bool usesWarpLevelOps = false;
  /// A kernel whose result does not depend on its grid's x size: blockIdx.x
  /// and gridDim.x only start and stride grid-stride loops.
  bool gridStride = false;
  /// Kernels: named constants that keep their values: a host
  /// helper computing a launch's grid reads them itself (`GET_BLOCKS(n)`
  /// dividing by the block's constant), and this kernel's result depends on
  /// its grid; or a device helper that cannot become a template (an
  /// operator) uses them.
  std::set<std::string> keptConstants;
  /// Device helpers called directly (function ids).
  std::vector<std::string> callees;
  /// Kernels: whether each row (blockIdx.x) can be split over several
  /// blocks (a row_split parameter, RowSplit.cpp).
  RowSplitFacts rowSplit;
  /// Kernels: whether a register cap can be introduced (RegisterCap.cpp).
  RegisterCapFacts registerCap;
  /// Kernels: the integer arguments a fixed_arg parameter can set at
  /// compile time, and those it cannot (FixedArgs.cpp).
  std::vector<FixableArg> fixableArgs;
};

/// A static __shared__ array: bytes = elementSize * product(extents).
struct SharedArrayFacts {
  std::string function;
  std::string name;
  Position offset;
  uint64_t elementSize = 0;         // 0: unknown (dependent type)
  std::vector<std::string> extents; // marker expressions; empty: unknown
};

/// How a call reaches its callee. A launch is read the same way whatever its
/// spelling; a reference names the kernel for a launch made elsewhere
/// (cudaFuncSetAttribute, a launch helper's argument) and takes the template
/// arguments a launch takes. Spelled in --dump-facts as callFormName gives.
enum class CallForm {
  DeviceCall,        // "call": a device helper called
  Chevron,           // "<<<>>>"
  LaunchKernelEx,    // "cudaLaunchKernelEx": geometry in a cudaLaunchConfig_t
  LaunchKernel,      // "cudaLaunchKernel"
  CooperativeKernel, // "cudaLaunchCooperativeKernel"
  LaunchHelper,      // "launch_helper": a function of the file that launches
                     // the kernel it is given
  LauncherCall,      // "launcher_call": a call of a launcher template whose
                     // explicit arguments set the launch's template
                     // arguments or geometry, read as a launch in the caller
  Reference,         // "reference"
};
std::string_view callFormName(CallForm form);

/// A call that may need template arguments when its callee gains template
/// parameters: kernel launches, references and calls of device helpers.
struct CallFacts {
  Position offset; // of the callee's name
  unsigned line = 0, col = 0;
  std::string caller; // function id
  std::string callee; // function id
  bool isLaunch = false;
  /// A launch through a local that a picker function's call set
  /// (`fp k = pick(t); k<<<g, b>>>()`): the picker's returns take the
  /// kernel's template arguments, the launch none.
  bool kernelArgsInPicker = false;
  /// With an explicit template argument list: the offset of its '>'.
  /// Without one: the offset just after the callee's name.
  bool hasExplicitArgs = false;
  Position insertOffset;
  unsigned explicitArgCount = 0;
  /// Arguments for the callee's existing template parameters that the call
  /// leaves implicit (deduced or defaulted), spelled so they are valid at
  /// the call. Empty when the callee has no such parameters.
  std::vector<std::string> implicitArgs;
  /// Why implicitArgs could not be spelled (empty: they could).
  std::string implicitArgsError;
  /// Launches: geometry as marker expressions over the kernel's parameter
  /// names; empty vectors when it could not be expressed.
  std::vector<std::string> grid, block;
  std::string smem = "0";
  std::string geometryError;
  /// <<<>>> launches: the grid argument's range (a position and length;
  /// length 0: not one file range) and whether it is a dim3.
  unsigned gridArgOffset = 0, gridArgLength = 0;
  bool gridIsDim3 = false;
  /// Explicit template arguments at the call, as written.
  std::vector<std::string> explicitArgs;
  CallForm form = CallForm::DeviceCall;
  /// LauncherCall: the launcher template called (a function id). Its own
  /// launch has setByCallers: each call says what it launches.
  std::string launcher;
  bool setByCallers = false;
  /// LauncherCall: where the caller spells each of the kernel's explicit
  /// template arguments (0: it does not, the launcher does).
  std::vector<Position> explicitArgAt;
  bool cooperative = false;
  /// Parameters of the launching function that the geometry names (the
  /// problem's dimensions, `num_tokens`), besides the kernel's arguments.
  std::vector<std::string> hostNames;
  /// Launches: for each of the kernel's arguments, the launching function's
  /// parameter it passes unchanged (never written there), else "".
  std::vector<std::string> argParams;
  /// The function-like macro whose body spells the callee: no template
  /// arguments can be added there (one spelling for every expansion).
  std::string macro;
  /// A launch in one case of a configuration table (an if/else-if chain or
  /// a switch in the host function): the table's first `if` or `switch`,
  /// the case's place in it (0 first), and when the case is reached, as an
  /// expression of the host function's parameters ("(seqlen) <= (128)");
  /// "unknown" when an enclosing condition names anything else.
  std::optional<Position> caseTable;
  unsigned caseTableLine = 0;
  int caseIndex = -1;
  std::string caseCondition;
  /// The numbers the conditions choosing the case name, spelled or not
  /// (its own and the enclosing branches', not those of the earlier cases
  /// it is the `else` of), and whether one takes a remainder: what may
  /// have chosen a template argument.
  std::set<long long> caseNumbers;
  bool caseRemainder = false;

  /// A launch, or a reference that names the kernel like one.
  bool namesKernel() const { return isLaunch || form == CallForm::Reference; }
};

enum class Spelling { Literal, Macro, Variable, Enumerator };

/// How a literal groups with the other literals of its kernel (named
/// constants group by name and have no family). str() is the spelling of
/// --dump-facts ("block", "targ@1") and orders one-group-per-key families.
struct Family {
  enum class Kind {
    None,           // "": a named constant
    Block,          // "block": block/tile literals, grouped by value
    Unlinked,       // "unlinked": a literal in no recognised role
    ItemsPerThread, // "ipt": cub items per thread, register arrays
    VectorBytes,    // "vecbytes": the N of N / sizeof(T)
    Unroll,         // "unroll@<offset>": one #pragma unroll
    Items,          // "items@<offset>": one register array's extent
    MinBlocks,      // "minblocks@<offset>": __launch_bounds__' min blocks
    VectorType,     // "vectype:<name>": a vector type (reported only)
    TemplateArg,    // "targ@<index>": a launch's kernel template argument;
                    // "targ@<index>:Class::param": a configuration type's
    GridSize,       // "grid@<offset>": a grid-stride kernel's grid x size
  };
  Kind kind = Kind::None;
  /// Unroll, Items, MinBlocks, GridSize: the position of the site (packed);
  /// TemplateArg: the index of the kernel template parameter (of the class
  /// template's, for a configuration type's argument).
  unsigned at = 0;
  std::string typeName; // VectorType; a configuration type's "Class::param"

  Family() = default;
  Family(Kind kind, unsigned at = 0, std::string typeName = {})
      : kind(kind), at(at), typeName(std::move(typeName)) {}

  static Family block() { return {Kind::Block}; }
  static Family unlinked() { return {Kind::Unlinked}; }
  static Family itemsPerThread() { return {Kind::ItemsPerThread}; }
  static Family vectorBytes() { return {Kind::VectorBytes}; }
  static Family unroll(Position at) { return {Kind::Unroll, at}; }
  static Family items(Position at) { return {Kind::Items, at}; }
  static Family minBlocks(Position at) { return {Kind::MinBlocks, at}; }
  static Family vectorType(std::string name) {
    return {Kind::VectorType, 0, std::move(name)};
  }
  static Family templateArg(unsigned index) {
    return {Kind::TemplateArg, index};
  }
  static Family gridSize(Position at) { return {Kind::GridSize, at}; }

  /// One group per family key rather than per value: unroll, items,
  /// min blocks, vector types and grid sizes.
  bool isSingle() const {
    return kind == Kind::Unroll || kind == Kind::Items ||
           kind == Kind::MinBlocks || kind == Kind::VectorType ||
           kind == Kind::GridSize;
  }
  std::string str() const;
  bool operator==(const Family &) const = default;
};
std::ostream &operator<<(std::ostream &os, const Family &family);

/// One spelled constant that may be a tuning knob, in one role, attributed
/// to one kernel (a helper's constants are attributed to every kernel that
/// calls it).
struct Occurrence {
  Position offset;
  unsigned length = 0;
  unsigned line = 0, col = 0;
  std::string text;     // source text of [offset, offset+length)
  std::string function; // id of the function the site is in
  std::string kernel;   // id of the kernel it belongs to
  SiteRole role = SiteRole::Other;
  /// For `definition` sites: the role of the use that made it interesting.
  std::optional<SiteRole> useRole;
  std::string replacement = "{P}";
  std::string before, after; // SourceSite::before/after: inserted text
  int64_t value = 0;         // what the site spells
  int64_t baseValue = 0; // the parameter's value ("{P} + 1" sites: value - 1)
  Spelling spelling = Spelling::Literal;
  /// Named constants: "macro:NAME", "var:<offset>", "enum:<offset>".
  std::string constant;
  std::string constantName;
  /// Literals: how they group (named constants: Kind::None).
  Family family;
  int dim = -1; // launch dims: 0, 1, 2
  /// The constant is the whole role expression (or a min/max bound of it),
  /// not an operand inside it.
  bool top = true;
  int boundParam = -1; // template_arg/default: kernel template parameter index
  /// Needs a type-preserving cast when replaced (literal typed other than int).
  std::string castType;
  /// The type of the constant the site spells, for the parameter that
  /// replaces it: the literal's or macro's type, a constant's declared type
  /// (also at its definition). Empty: int.
  std::string valueType;
  /// A constant defined from several others: its value as an expression
  /// with "§key=value§" placeholders for them.
  std::string derivedExpr;
  /// A site of a constant derived from this one: its value as an
  /// expression of "{P}" and numbers (`{P} * 32`), for launch geometry.
  std::string valueForm;
  /// The launches whose geometry or template arguments spell the site
  /// (their CallFacts::offset).
  std::vector<Position> launches;
  /// A literal spelled in the body of this function-like macro of the main
  /// file: one edit serves every expansion, so every function expanding
  /// the macro must take the parameter under one name.
  std::string macroBody;
};

/// A function-like macro of a project header whose body spells a site: the
/// output redefines it in the main file (`#undef` and the definition with
/// the edits), so the header and the other files expanding it keep theirs.
struct MacroCopy {
  Position begin = 0, end = 0; // the `#define` line(s) in the header
  Position insertAt = 0;       // a main-file line start before every expansion
};

struct SourceFacts {
  std::string file; // main file as given
  /// The files positions point into, the main file first. Empty in facts
  /// built by hand: then every position is in the main file.
  std::vector<SourceFile> files;
  /// Directories a rewritten header can be placed under (its path relative
  /// to one is how it is included): the project's -I directories and the
  /// main file's directory, absolute.
  std::vector<std::string> includeRoots;
  std::map<std::string, FunctionFacts> functions; // by id
  std::vector<CallFacts> calls;
  std::vector<Occurrence> occurrences;
  std::vector<SharedArrayFacts> sharedArrays;
  /// The main file's host-only functions (neither __device__ nor
  /// __global__, not constexpr, not members), [begin, end) positions from
  /// their first token to the closing brace or ';': what `ktune run` hides
  /// from NVRTC (RewriteOptions::guardHostCode). Read on the host side.
  std::vector<std::pair<Position, Position>> hostOnlyRanges;
  /// Uses of a namespace-scope constant of the main file (`const int
  /// WARPS = 4;`) -> where its declaration starts: once its uses are lifted
  /// it is marked [[maybe_unused]] (nvcc warns of an unreferenced variable,
  /// an error under -Werror=all-warnings).
  std::map<Position, Position> constantDeclarations;
  /// Header macros the output redefines in the main file, by name.
  std::map<std::string, MacroCopy> macroCopies;
  /// __launch_bounds__ max-threads expressions per kernel id (markers).
  std::map<std::string, std::string> launchBounds;
  /// Things detection saw but could not use, as "line:col: message".
  std::vector<std::string> notes;

  const FunctionFacts *function(const std::string &id) const;
  std::vector<const FunctionFacts *> kernels() const;
  /// How plans and candidates name `kernel`: its qualified name, or
  /// "name@line" when overloads share that name.
  std::string kernelPlanName(const FunctionFacts &kernel) const;

  /// The path of file `fileIndex` as sites and messages name it.
  const std::string &pathOf(unsigned fileIndex) const;
  /// The index of the file sites name `path`, if detection read it.
  std::optional<unsigned> fileIndexOf(const std::string &path) const;
  /// The position of a candidate's site (sites hold offsets in their file).
  std::optional<Position> position(const SourceSite &site) const;
  /// The text of file `fileIndex`; `mainText` for the main file when the
  /// facts hold no texts (built by hand).
  llvm::StringRef textOf(unsigned fileIndex, llvm::StringRef mainText) const;
};

/// What tells apart occurrences at one position besides their function,
/// kernel and role: an insertion's constant (the local constants shadowing
/// several header constants are all inserted at the start of one body).
inline std::string insertedConstant(const Occurrence &o) {
  return o.length == 0 ? o.constant : std::string();
}

/// The role that makes a site interesting: a definition's use role, else
/// its own (nullopt for a definition without one).
inline std::optional<SiteRole> effectiveRole(const Occurrence &o) {
  return o.role == SiteRole::Definition ? o.useRole
                                        : std::optional<SiteRole>(o.role);
}

/// Merges the facts of a second compilation side into `into`, de-duplicating
/// by position (code under #ifdef __CUDA_ARCH__ is only seen by one side).
/// Each side numbers its files in the order it met them: the other side's
/// positions are renumbered to `into`'s files (matched by absolute path).
void mergeFacts(SourceFacts &into, const SourceFacts &other);

/// Drops, from both sides' facts, every named constant that has another
/// value on the device side than on the host side at the same site (one
/// default cannot serve both), with a note. Call before mergeFacts.
void dropSideDivergentConstants(SourceFacts &host, SourceFacts &device);

/// Renumbers files: every position (and every function id and marker built
/// from one) in file i moves to file newIndex[i]. A field that holds a
/// position must be handled here.
void remapFiles(SourceFacts &facts, const std::vector<unsigned> &newIndex);

/// Everything in `facts` as JSON, for debugging detection
/// (`ktune-refactor --dump-facts`).
nlohmann::json factsToJson(const SourceFacts &facts);

/// "@123@" for the constant spelled at position 123.
std::string marker(Position position);

/// "fn@123" (FunctionFacts::id) for the function named at position 123.
std::string functionId(Position name);
/// The position a function id names; nullopt for an id of another form.
std::optional<Position> functionIdPosition(const std::string &id);

/// Replaces every "@N@" marker in `text` by `resolve(N)`; nullopt from
/// `resolve` makes the whole result nullopt.
std::optional<std::string> resolveMarkers(
    const std::string &text,
    const std::function<std::optional<std::string>(Position)> &resolve);

/// The kernels that reach each helper through calls (helper id -> kernel ids),
/// each kernel mapping to itself.
std::map<std::string, std::vector<std::string>>
kernelsReaching(const SourceFacts &facts);

/// Occurrences in device helpers are collected once, without a kernel; this
/// copies each to every kernel that reaches its helper.
void attributeHelperOccurrences(SourceFacts &facts);

} // namespace ktune::refactor

#endif
