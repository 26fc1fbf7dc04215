#pragma once
// A block comment running over a line's end without a backslash: the
// definition goes on past it, so the macro is not copied.
#define launch_commented(kernel, n, args) kernel<<<(n + 127) / 128, 128>>> args; /* the
  comment ends here */
