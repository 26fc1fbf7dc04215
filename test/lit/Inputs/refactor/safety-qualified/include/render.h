#pragma once
namespace NS {
void render(float *out, int n);
}
