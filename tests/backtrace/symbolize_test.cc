// Honest symbols (issue 15): a stripped object is named through its separate
// debug file (build-id path or .gnu_debuglink), and without one only an
// exported function whose extent holds the address is named, never the
// nearest exported symbol below it.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "backtrace_symbolize.h"
#include "run_program.h"
#include "symbol_source.h"

namespace account::testing {
namespace {

namespace fs = std::filesystem;

std::string shell(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  EXPECT_EQ(pclose(p), 0) << command;
  return out;
}

// The address nm gives `symbol` in `file` (--dynamic for the exported ones).
uint64_t address_of(const std::string& file, const std::string& symbol, bool dynamic = false) {
  std::string out = shell("nm " + std::string(dynamic ? "-D " : "") + "'" + file + "'");
  size_t at = out.find(" " + symbol + "\n");
  EXPECT_NE(at, std::string::npos) << symbol;
  if (at == std::string::npos) return 0;
  size_t line = out.rfind('\n', at);
  line = line == std::string::npos ? 0 : line + 1;
  return std::stoull(out.substr(line, 16), nullptr, 16);
}

std::string build_id(const std::string& file) {
  std::string out = shell("readelf -n '" + file + "'");
  size_t at = out.find("Build ID: ");
  EXPECT_NE(at, std::string::npos);
  return at == std::string::npos ? "" : out.substr(at + 10, out.find('\n', at) - at - 10);
}

std::string function_at(const std::vector<std::string>& roots, const std::string& file,
                        uint64_t address) {
  auto symbolizer = make_addr2line_symbolizer("addr2line", roots);
  return symbolizer->resolve(file, {address}).at(0).function;
}

const std::string kProgram = std::string(BACKTRACE_PROGRAMS_DIR) + "/alloc_paths_fp";
constexpr const char kBigOnce[] = "_ZN11alloc_paths8big_onceEv";

TEST(HonestSymbols, StrippedProgramThroughItsBuildIdDebugFile) {
  TempDir dir;
  std::string stripped = dir.file("prog"), debug = dir.file("prog.debug");
  shell("objcopy --only-keep-debug '" + kProgram + "' '" + debug + "'");
  shell("objcopy --strip-all '" + kProgram + "' '" + stripped + "'");
  uint64_t pc = address_of(kProgram, kBigOnce) + 4;
  std::string id = build_id(stripped);
  ASSERT_GT(id.size(), 2u);
  std::string root = dir.file("debug");
  fs::create_directories(root + "/.build-id/" + id.substr(0, 2));
  // Without the debug file: unknown, not a wrong name.
  EXPECT_EQ(function_at({root}, stripped, pc), "");
  fs::copy_file(debug, root + "/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug");
  EXPECT_EQ(function_at({root}, stripped, pc), "alloc_paths::big_once()");
  // The object itself when it is not stripped.
  EXPECT_EQ(function_at({}, kProgram, pc), "alloc_paths::big_once()");
}

TEST(HonestSymbols, StrippedProgramThroughItsDebuglink) {
  TempDir dir;
  std::string debug = dir.file("prog.debug"), stripped = dir.file("prog");
  shell("objcopy --only-keep-debug '" + kProgram + "' '" + debug + "'");
  shell("cd '" + dir.path() + "' && objcopy --strip-all --add-gnu-debuglink=prog.debug '" +
        kProgram + "' prog");
  uint64_t pc = address_of(kProgram, kBigOnce) + 4;
  EXPECT_EQ(function_at({dir.file("none")}, stripped, pc), "alloc_paths::big_once()");
  fs::remove(debug);
  EXPECT_EQ(function_at({dir.file("none")}, stripped, pc), "");
}

// A stripped shared library keeps its exported functions: an address inside
// one is named, an address in a local function between them is not.
TEST(HonestSymbols, StrippedLibraryNamesOnlyTheExportedFunctionHoldingTheAddress) {
  TempDir dir;
  std::string lib = std::string(ACCOUNT_SHIM_PATH), stripped = dir.file("lib.so");
  shell("objcopy --strip-all '" + lib + "' '" + stripped + "'");
  uint64_t malloc_pc = address_of(lib, "malloc", true) + 1;
  EXPECT_EQ(function_at({dir.file("none")}, stripped, malloc_pc), "malloc");
  // A local (t) function of the shim: addr2line on the stripped copy would
  // name the exported function below it.
  std::string locals =
      shell("nm --defined-only '" + lib + "' | grep ' t ' | grep -v '\\.' | head -1");
  ASSERT_FALSE(locals.empty());
  uint64_t local_pc = std::stoull(locals.substr(0, 16), nullptr, 16);
  std::optional<SymbolSource> source = find_symbol_source(stripped, {dir.file("none")});
  ASSERT_TRUE(source);
  EXPECT_EQ(source->symbols, "");
  EXPECT_EQ(exported_function_at(*source, local_pc), "") << locals;
  EXPECT_EQ(function_at({dir.file("none")}, stripped, local_pc), "") << locals;
}

// Debian's git is stripped but exports a few functions (`error` among them):
// plain addr2line names every address past `error` after it. Ours does not
// (and names the right function if git's debug symbols are installed).
TEST(HonestSymbols, DebiansGitIsNotAllError) {
  const std::string git = "/usr/bin/git";
  ASSERT_TRUE(fs::exists(git)) << "git is installed by scripts/install-deps.sh";
  std::string line = shell("readelf -W --dyn-syms " + git +
                           " | awk '$4==\"FUNC\" && $7!=\"UND\" && $8==\"error\"'");
  ASSERT_FALSE(line.empty()) << "git no longer exports error(): pick another symbol";
  std::istringstream in(line);
  std::string num, value;
  uint64_t size = 0;
  in >> num >> value >> size;
  uint64_t past = std::stoull(value, nullptr, 16) + size + 0x4000;
  std::string plain = shell("addr2line -f -e " + git + " " + fmt::format("{:#x}", past));
  EXPECT_EQ(plain.substr(0, plain.find('\n')), "error");  // the wrong name this guards against
  std::string ours = function_at({"/usr/lib/debug"}, git, past);
  EXPECT_NE(ours, "error");
  std::optional<SymbolSource> source = find_symbol_source(git);
  ASSERT_TRUE(source);
  if (source->symbols.empty()) {
    EXPECT_EQ(ours, "");
  }
}

TEST(HonestSymbols, NotAnElfFileIsUnknown) {
  TempDir dir;
  std::string text = dir.file("t.txt");
  shell("echo hello > '" + text + "'");
  EXPECT_FALSE(find_symbol_source(text));
  EXPECT_EQ(function_at({}, text, 0x10), "");
}

}  // namespace
}  // namespace account::testing
