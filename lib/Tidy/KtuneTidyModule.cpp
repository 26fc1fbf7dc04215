//===- KtuneTidyModule.cpp - ktune-* checks for clang-tidy ----------------===//
//
// A clang-tidy module, loaded with `clang-tidy --load=KtuneTidy.so`, with
// one check per parameter kind. Detection, planning and the fix-its are
// ktune-refactor's own library code; the checks (KtuneCheck.h) only turn
// findings into diagnostics. The checks a module instance creates share
// one UnitAnalysis, so a unit is analysed once whatever checks are enabled.
//
//===----------------------------------------------------------------------===//

#include "Checks.h"

#include "clang-tidy/ClangTidyModule.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"

using namespace clang::tidy;

namespace ktune::tidy {
namespace {

class KtuneModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &factories) override {
    auto unit = std::make_shared<UnitAnalysis>();
    add<BlockSizeCheck>(factories, unit);
    add<TileSizeCheck>(factories, unit);
    add<UnrollFactorCheck>(factories, unit);
    add<VectorWidthCheck>(factories, unit);
    add<ItemsPerThreadCheck>(factories, unit);
    add<WarpsPerBlockCheck>(factories, unit);
    add<GridSizeCheck>(factories, unit);
  }

private:
  template <typename Check>
  static void add(ClangTidyCheckFactories &factories,
                  std::shared_ptr<UnitAnalysis> unit) {
    factories.registerCheckFactory(
        *checkName(Check::Kind),
        [unit](llvm::StringRef name, ClangTidyContext *context) {
          return std::make_unique<Check>(name, context, unit);
        });
  }
};

} // namespace
} // namespace ktune::tidy

static clang::tidy::ClangTidyModuleRegistry::Add<ktune::tidy::KtuneModule>
    KtuneModuleRegistration("ktune-module",
                            "ktune: hardcoded CUDA tuning constants");
