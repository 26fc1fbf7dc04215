//===- ktune/Support/Error.h - Errors as values without LLVM ----*- C++ -*-===//
//
// The tuner side builds without LLVM, so the libraries shared by both stages
// report errors as std::expected<T, ktune::Error>. The Clang side converts at
// its boundary (see toLLVMError in ktune/Refactor).
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_SUPPORT_ERROR_H
#define KTUNE_SUPPORT_ERROR_H

#include <expected>
#include <string>
#include <utility>

namespace ktune {

/// One clear message, and where it applies: a "file:line:col", a JSON path
/// such as "kernels[0].params[1].name", or empty.
struct Error {
  std::string message;
  std::string where;

  /// "where: message", or just the message.
  std::string str() const;
};

template <class T> using Expected = std::expected<T, Error>;

/// For functions that return nothing but may fail.
using Status = std::expected<void, Error>;

inline std::unexpected<Error> makeError(std::string message,
                                        std::string where = {}) {
  return std::unexpected<Error>(Error{std::move(message), std::move(where)});
}

/// Prefix the location of an error with an outer location ("spec.json" +
/// "args.out.shape[0]" -> "spec.json: args.out.shape[0]").
Error withContext(Error inner, const std::string &outer);

/// `result`, its error (if any) located inside `outer`; for propagating
/// with context:
///   KTUNE_TRY_ASSIGN(auto spec, withContext(specFromJson(json), path));
template <class T>
Expected<T> withContext(Expected<T> result, const std::string &outer) {
  if (!result)
    return std::unexpected(withContext(std::move(result).error(), outer));
  return result;
}

} // namespace ktune

#endif
