// <math.h> for NVRTC: see ktune_nvrtc_std.h.
#pragma once
#include "ktune_nvrtc_std.h"
