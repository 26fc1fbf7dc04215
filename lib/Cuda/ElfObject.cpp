//===- ElfObject.cpp - Sections, symbols and relocations of an object -----===//
#include "ktune/Cuda/ElfObject.h"

#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <memory>

namespace ktune {

namespace {

// ELF64 constants this reader uses.
constexpr uint32_t SHT_SYMTAB = 2;
constexpr uint32_t SHT_RELA = 4;
constexpr uint16_t SHN_LORESERVE = 0xff00;
constexpr uint8_t STT_FUNC = 2;
constexpr uint8_t STT_SECTION = 3;

/// Little-endian reads at an offset that has been checked.
template <class T> T readAt(const std::string &b, uint64_t offset) {
  T v;
  std::memcpy(&v, b.data() + offset, sizeof(T));
  return v;
}

bool fits(const std::string &b, uint64_t offset, uint64_t size) {
  return offset <= b.size() && size <= b.size() - offset;
}

std::string cString(const std::string &b, uint64_t tableOffset,
                    uint64_t tableSize, uint64_t index) {
  if (index >= tableSize || !fits(b, tableOffset, tableSize))
    return {};
  const char *start = b.data() + tableOffset + index;
  size_t most = static_cast<size_t>(tableSize - index);
  return std::string(start, strnlen(start, most));
}

} // namespace

Expected<ElfObject> ElfObject::parse(std::string bytes) {
  ElfObject o;
  o.Bytes = std::move(bytes);
  const std::string &b = o.Bytes;
  if (b.size() < 64 || b.compare(0, 4,
                                 "\x7f"
                                 "ELF") != 0)
    return makeError("not an ELF file");
  if (b[4] != 2 || b[5] != 1)
    return makeError("not a 64-bit little-endian ELF file");
  if (readAt<uint16_t>(b, 16) != 1)
    return makeError("not a relocatable object (ET_REL)");
  uint64_t shoff = readAt<uint64_t>(b, 40);
  uint16_t shentsize = readAt<uint16_t>(b, 58);
  uint16_t shnum = readAt<uint16_t>(b, 60);
  uint16_t shstrndx = readAt<uint16_t>(b, 62);
  if (shentsize < 64 || !fits(b, shoff, uint64_t(shentsize) * shnum))
    return makeError("section headers out of range");
  for (uint16_t i = 0; i < shnum; ++i) {
    uint64_t h = shoff + uint64_t(i) * shentsize;
    Section s;
    s.type = readAt<uint32_t>(b, h + 4);
    s.offset = readAt<uint64_t>(b, h + 24);
    s.size = readAt<uint64_t>(b, h + 32);
    s.link = readAt<uint32_t>(b, h + 40);
    s.info = readAt<uint32_t>(b, h + 44);
    s.nameIndex = readAt<uint32_t>(b, h);
    o.Sections.push_back(s);
  }
  if (shstrndx < o.Sections.size()) {
    const Section &names = o.Sections[shstrndx];
    for (auto &s : o.Sections)
      s.name = cString(b, names.offset, names.size, s.nameIndex);
  }
  // Symbols (one symbol table in a relocatable object), then relocations.
  int symtab = -1;
  for (size_t i = 0; i < o.Sections.size(); ++i)
    if (o.Sections[i].type == SHT_SYMTAB) {
      symtab = static_cast<int>(i);
      break;
    }
  if (symtab < 0)
    return o;
  const Section &st = o.Sections[symtab];
  if (!fits(b, st.offset, st.size) || st.link >= o.Sections.size())
    return makeError("symbol table out of range");
  const Section &strtab = o.Sections[st.link];
  for (uint64_t off = st.offset; off + 24 <= st.offset + st.size; off += 24) {
    Symbol sym;
    sym.name = cString(b, strtab.offset, strtab.size, readAt<uint32_t>(b, off));
    sym.type = static_cast<uint8_t>(readAt<uint8_t>(b, off + 4) & 0xf);
    sym.section = readAt<uint16_t>(b, off + 6);
    sym.value = readAt<uint64_t>(b, off + 8);
    sym.size = readAt<uint64_t>(b, off + 16);
    o.Symbols.push_back(std::move(sym));
  }
  for (const Section &s : o.Sections) {
    if (s.type != SHT_RELA || s.link != static_cast<uint32_t>(symtab))
      continue;
    if (!fits(b, s.offset, s.size))
      return makeError("relocations out of range");
    for (uint64_t off = s.offset; off + 24 <= s.offset + s.size; off += 24) {
      Relocation r;
      r.targetSection = static_cast<uint16_t>(s.info);
      r.offset = readAt<uint64_t>(b, off);
      r.symbol = static_cast<uint32_t>(readAt<uint64_t>(b, off + 8) >> 32);
      r.addend = readAt<int64_t>(b, off + 16);
      o.Relocations.push_back(r);
    }
  }
  return o;
}

std::optional<std::string_view>
ElfObject::section(std::string_view name) const {
  for (const Section &s : Sections)
    if (s.name == name && fits(Bytes, s.offset, s.size))
      return std::string_view(Bytes).substr(s.offset, s.size);
  return std::nullopt;
}

std::optional<std::string>
ElfObject::pointerTarget(std::string_view symbol) const {
  const Symbol *holder = nullptr;
  for (const Symbol &s : Symbols)
    if (s.name == symbol && s.section != 0 && s.section < SHN_LORESERVE)
      holder = &s;
  if (!holder)
    return std::nullopt;
  for (const Relocation &r : Relocations) {
    if (r.targetSection != holder->section || r.offset != holder->value ||
        r.symbol >= Symbols.size())
      continue;
    const Symbol &target = Symbols[r.symbol];
    if (target.type != STT_SECTION)
      return target.name.empty() ? std::nullopt
                                 : std::optional<std::string>(target.name);
    // A local function: the relocation names its section and offset.
    for (const Symbol &f : Symbols)
      if (f.type == STT_FUNC && f.section == target.section &&
          static_cast<int64_t>(f.value) == r.addend)
        return f.name;
    return std::nullopt;
  }
  return std::nullopt;
}

std::string demangle(const std::string &mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void *)> out(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
      std::free);
  return status == 0 && out ? std::string(out.get()) : mangled;
}

} // namespace ktune
