//===- ktune/Cuda/ElfObject.h - What nvcc's host object holds ---*- C++ -*-===//
//
// The nvcc backend builds many instantiations into one host object and must
// then know which device function each one is, without running anything and
// without a GPU. The object answers both questions: its `.nv_fatbin`
// section is the device code (what the worker loads), and a pointer variable
// `void *ktune_kernel_<i> = (void *)&ns::k<...>;` is relocated against the
// host stub of instantiation i, whose mangled name is the device function's
// with the host's internal-linkage marker (compared demangled). This reads
// the sections, symbols and relocations of an ELF64 little-endian
// relocatable object (x86-64 or AArch64); every offset is range-checked.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_CUDA_ELFOBJECT_H
#define KTUNE_CUDA_ELFOBJECT_H

#include "ktune/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ktune {

class ElfObject {
public:
  /// Parses `bytes` (kept by value). Errors for anything that is not a
  /// well-formed ELF64 little-endian relocatable object.
  static Expected<ElfObject> parse(std::string bytes);

  /// The bytes of the section named `name`, if there is one.
  std::optional<std::string_view> section(std::string_view name) const;

  /// For a data symbol holding one pointer (`ktune_kernel_3`): the name of
  /// the function it points at (a named symbol, or the function symbol at
  /// the relocation's section and addend). nullopt when the symbol, its
  /// relocation or a function there is missing.
  std::optional<std::string> pointerTarget(std::string_view symbol) const;

  struct Symbol {
    std::string name;
    uint64_t value = 0, size = 0;
    uint16_t section = 0; // st_shndx
    uint8_t type = 0;     // STT_*
  };
  const std::vector<Symbol> &symbols() const { return Symbols; }

private:
  struct Section {
    std::string name;
    uint32_t nameIndex = 0; // in the section-name string table
    uint32_t type = 0;
    uint64_t offset = 0, size = 0;
    uint32_t link = 0, info = 0;
  };
  struct Relocation {
    uint16_t targetSection = 0;
    uint64_t offset = 0;
    uint32_t symbol = 0;
    int64_t addend = 0;
  };
  std::string Bytes;
  std::vector<Section> Sections;
  std::vector<Symbol> Symbols;
  std::vector<Relocation> Relocations;
};

/// The demangled form of an Itanium-mangled name ("_ZN3ops1kILi4EEEvPf" ->
/// "void ops::k<4>(float*)"); the name itself when it does not demangle.
std::string demangle(const std::string &mangled);

} // namespace ktune

#endif
