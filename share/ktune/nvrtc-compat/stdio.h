// <stdio.h> for NVRTC: host-only, so nothing here (ktune run skips host
// code under NVRTC: see ktune_nvrtc_std.h).
#pragma once
#include "ktune_nvrtc_std.h"
