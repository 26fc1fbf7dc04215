// Clang's CUDA wrapper includes this header by name. CUDA 13 still ships
// it (texture and surface object fetches: tex1Dfetch<T>(cudaTextureObject_t,
// ...)), so the toolkit's copy is read where there is one; a toolkit
// without it gets nothing, as with texture_fetch_functions.h.
#if __has_include_next(<texture_indirect_functions.h>)
#include_next <texture_indirect_functions.h>
#endif
