#include "ktune/Support/Error.h"

namespace ktune {

std::string Error::str() const {
  return where.empty() ? message : where + ": " + message;
}

Error withContext(Error inner, const std::string &outer) {
  if (outer.empty())
    return inner;
  inner.where = inner.where.empty() ? outer : outer + ": " + inner.where;
  return inner;
}

} // namespace ktune
