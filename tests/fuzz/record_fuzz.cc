// libFuzzer target for the record reader: parse_record and RecordParser must
// never crash, and must agree on every line (same verdict, same reason, same
// figures), including after the parser has seen earlier lines.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "record.h"

namespace {

void check(bool condition) {
  if (!condition) abort();
}

bool same(const account::Record& a, const account::Record& b) {
  if (a.index() != b.index()) return false;
  if (const auto* p = std::get_if<account::ProcessRecord>(&a)) {
    const auto& q = std::get<account::ProcessRecord>(b);
    return p->pid == q.pid && p->argv == q.argv && p->exe == q.exe && p->end == q.end &&
           p->malloc_bytes == q.malloc_bytes && p->exit_code == q.exit_code &&
           p->signal == q.signal && p->test == q.test && p->op == q.op;
  }
  const auto& p = std::get<account::TreeRecord>(a);
  const auto& q = std::get<account::TreeRecord>(b);
  return p.test == q.test && p.op == q.op && p.processes == q.processes && p.run == q.run;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static account::RecordParser parser;  // kept across inputs, as the reader does
  std::string_view line(reinterpret_cast<const char*>(data), size);
  std::string reason_a, reason_b;
  auto a = account::parse_record(line, &reason_a);
  auto b = parser.parse(line, &reason_b);
  check(a.has_value() == b.has_value());
  if (a) {
    check(same(*a, *b));
  } else {
    check(!reason_a.empty());
    check(reason_a == reason_b);
  }
  return 0;
}
