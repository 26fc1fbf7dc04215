//===- ktune/Driver/Console.h - What the tuning tools print -----*- C++ -*-===//
//
// Progress and the closing lines of ktune-tune and `ktune run`, on stderr
// (stdout carries the results table).
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_DRIVER_CONSOLE_H
#define KTUNE_DRIVER_CONSOLE_H

#include "ktune/Tune/Session.h"

namespace ktune::driver {

/// Progress lines on stderr: one line rewritten in place on a terminal,
/// else a line every `every` evaluations.
ProgressOptions progressOnStderr(uint64_t every);

/// What a session wrote, one "wrote FILE" (or "journal FILE") line each,
/// after what each GPU did when there were several.
void printSessionOutputs(const SessionReport &report);

} // namespace ktune::driver

#endif
