//===- ktune/Support/DataPath.h - Finding ktune's data files ----*- C++ -*-===//
//
// Text the tools fill in (templates/) is read at run time, so it can be
// edited without rebuilding. It is looked up, in order, under
// $KTUNE_DATA_DIR, beside the executable's install prefix (share/ktune), in
// the source tree of a build directory, and in the source tree the tool was
// built from.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_SUPPORT_DATAPATH_H
#define KTUNE_SUPPORT_DATAPATH_H

#include "ktune/Support/Error.h"

#include <string>
#include <vector>

namespace ktune {

/// The directories searched for data files, in order.
std::vector<std::string> dataDirectories();

/// The first existing `relative` path (e.g. "templates/dispatch_header.h.in")
/// under dataDirectories(); the error lists where it looked.
Expected<std::string> findDataFile(const std::string &relative);

} // namespace ktune

#endif
