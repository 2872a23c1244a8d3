#pragma once
// ember::profiler: per-op times, argument sizes and memory of this thread's work (profile.h), added
// up into PyTorch's table (key_averages.h) or exported as a Chrome trace (chrome_trace.h).
#include "ember/profiler/chrome_trace.h"
#include "ember/profiler/event.h"
#include "ember/profiler/key_averages.h"
#include "ember/profiler/profile.h"
