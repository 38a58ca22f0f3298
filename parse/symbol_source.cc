#include "symbol_source.h"

#include <elf.h>
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iterator>

namespace account {

namespace {

// The whole file (ELF objects of interest are a few MiB at most; read once
// per module per report).
std::optional<std::string> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

bool readable(const std::string& path) {
  return std::ifstream(path).good();
}

template <typename T>
bool read_at(const std::string& data, uint64_t offset, T* out) {
  if (offset > data.size() || data.size() - offset < sizeof(T)) return false;
  std::copy_n(data.data() + offset, sizeof(T), reinterpret_cast<char*>(out));
  return true;
}

struct Sections {
  bool symtab = false;
  std::string build_id;   // hex
  std::string debuglink;  // file name
  std::vector<SymbolSource::Exported> exported;
};

bool has_symtab(const std::string& path) {
  std::optional<std::string> data = slurp(path);
  if (!data) return false;
  Elf64_Ehdr eh;
  if (!read_at(*data, 0, &eh)) return false;
  for (unsigned i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh;
    if (!read_at(*data, eh.e_shoff + uint64_t(i) * eh.e_shentsize, &sh)) return false;
    if (sh.sh_type == SHT_SYMTAB) return true;
  }
  return false;
}

std::optional<Sections> read_sections(const std::string& data) {
  Elf64_Ehdr eh;
  if (!read_at(data, 0, &eh) ||
      std::string_view(reinterpret_cast<char*>(eh.e_ident), 4) != ELFMAG ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr))
    return std::nullopt;
  std::vector<Elf64_Shdr> sh(eh.e_shnum);
  for (unsigned i = 0; i < eh.e_shnum; ++i)
    if (!read_at(data, eh.e_shoff + uint64_t(i) * sizeof(Elf64_Shdr), &sh[i])) return std::nullopt;
  auto section_name = [&](const Elf64_Shdr& s) -> std::string {
    if (eh.e_shstrndx >= sh.size()) return {};
    uint64_t at = sh[eh.e_shstrndx].sh_offset + s.sh_name;
    if (at >= data.size()) return {};
    return std::string(data.c_str() + at);
  };
  Sections out;
  for (const Elf64_Shdr& s : sh) {
    if (s.sh_type == SHT_SYMTAB) out.symtab = true;
    if (s.sh_type == SHT_NOTE && section_name(s) == ".note.gnu.build-id") {
      Elf64_Nhdr nh;
      if (read_at(data, s.sh_offset, &nh) && nh.n_type == NT_GNU_BUILD_ID) {
        uint64_t desc = s.sh_offset + sizeof nh + ((nh.n_namesz + 3) & ~3u);
        for (uint32_t k = 0; k < nh.n_descsz && desc + k < data.size(); ++k)
          out.build_id += fmt::format("{:02x}", uint8_t(data[desc + k]));
      }
    }
    if (s.sh_type == SHT_PROGBITS && section_name(s) == ".gnu_debuglink" &&
        s.sh_offset < data.size())
      out.debuglink = std::string(data.c_str() + s.sh_offset);
    if (s.sh_type == SHT_DYNSYM && s.sh_link < sh.size() && s.sh_entsize == sizeof(Elf64_Sym)) {
      const Elf64_Shdr& strtab = sh[s.sh_link];
      for (uint64_t k = 0; k < s.sh_size / sizeof(Elf64_Sym); ++k) {
        Elf64_Sym sym;
        if (!read_at(data, s.sh_offset + k * sizeof sym, &sym)) break;
        if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF ||
            sym.st_size == 0 || strtab.sh_offset + sym.st_name >= data.size())
          continue;
        out.exported.push_back({sym.st_value, sym.st_size,
                                std::string(data.c_str() + strtab.sh_offset + sym.st_name)});
      }
    }
  }
  return out;
}

std::string directory_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace

std::optional<SymbolSource> find_symbol_source(const std::string& path,
                                               const std::vector<std::string>& debug_roots) {
  std::optional<std::string> data = slurp(path);
  if (!data) return std::nullopt;
  std::optional<Sections> s = read_sections(*data);
  if (!s) return std::nullopt;
  SymbolSource out;
  if (s->symtab) {
    out.symbols = path;
    return out;
  }
  std::vector<std::string> candidates;
  if (s->build_id.size() > 2)
    for (const std::string& root : debug_roots)
      candidates.push_back(fmt::format("{}/.build-id/{}/{}.debug", root, s->build_id.substr(0, 2),
                                       s->build_id.substr(2)));
  if (!s->debuglink.empty()) {
    std::string dir = directory_of(path);
    candidates.push_back(dir + "/" + s->debuglink);
    candidates.push_back(dir + "/.debug/" + s->debuglink);
    for (const std::string& root : debug_roots)
      candidates.push_back(root + dir + "/" + s->debuglink);
  }
  for (const std::string& c : candidates) {
    if (c != path && readable(c) && has_symtab(c)) {
      out.symbols = c;
      return out;
    }
  }
  out.exported = std::move(s->exported);
  std::sort(out.exported.begin(), out.exported.end(),
            [](const auto& a, const auto& b) { return a.start < b.start; });
  return out;
}

std::string exported_function_at(const SymbolSource& source, uint64_t address) {
  for (const SymbolSource::Exported& e : source.exported)
    if (address >= e.start && address - e.start < e.size) return e.name;
  return {};
}

}  // namespace account
