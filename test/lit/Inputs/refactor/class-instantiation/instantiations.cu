// The engines' only translation unit: it includes their templates and
// instantiates them, calling nothing.
#include "engines/engine.tcu"

template class Engine<float, Hash>;
template class Engine<double, Hash>;
extern template class Unused<float>;
