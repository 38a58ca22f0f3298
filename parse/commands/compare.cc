#include "commands/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "commands/read_inputs.h"
#include "compare/compare_table.h"
#include "compare/stack_diff.h"
#include "formats/html_report.h"
#include "formats/registry.h"

namespace account {

int run_compare(const CompareOptions& options, const ByteSink& out, const MessageSink& err) {
  std::vector<std::string> names = options.names;
  if (names.empty())
    for (const std::string& f : options.files) names.push_back(f == "-" ? "<stdin>" : f);
  bool gated = !options.fail_on.empty();
  std::vector<Input> inputs;
  // With a gate, a file that does not exist is what a failed run leaves: not judged.
  std::vector<bool> missing;
  if (!open_all(options.files, &inputs, err, gated ? &missing : nullptr)) return 1;
  std::vector<std::unique_ptr<Aggregator>> aggregators;
  int status = 0;
  bool failed = false;
  std::vector<std::vector<Operation>> ops;
  std::optional<TimelineSpool> spool;
  if (format_entry(options.format).draws) spool.emplace();
  for (Input& in : inputs) {
    aggregators.push_back(std::make_unique<Aggregator>(
        format_entry(options.format).draws ? Kept::kProcessRecords : Kept::kRuns));
    if (!in.reader) {  // missing
      ops.emplace_back();
      continue;
    }
    in.into = aggregators.back().get();
    std::vector<Input> one;
    one.push_back(std::move(in));
    int s = read_inputs(one, options.strict, err, spool ? &*spool : nullptr);
    if (s == 1) return 1;
    status = std::max(status, s);
    ops.push_back(aggregators.back()->finish());
    failed = failed || any_failed(ops.back());
  }
  std::vector<std::vector<Operation>*> all;
  for (auto& o : ops) all.push_back(&o);
  note_unlabelled(all, err);
  CompareFindings findings;
  Table table = compare_table(names, ops, options.columns, options.include_failed, options.fail_on,
                              &findings, options.sort);
  for (const std::string& r : findings.refusals) err(r);
  GateStatus gate = GateStatus::kPassed;
  if (gated) {
    // An input without runs: one line for it, not one per operation it lacks.
    std::vector<GatedFigure> figures;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (!ops[i].empty()) continue;
      std::string file = options.files[i] == "-" ? "<stdin>" : options.files[i];
      std::string what = names[i] == file ? file : names[i] + " (" + file + ")";
      for (const Gate& g : options.fail_on)
        figures.push_back(GatedFigure{
            g, what, "", i, 0, 0, std::nullopt,
            !missing.empty() && missing[i] ? "no such file" : "no runs in it",
            "check the account run that writes it (a failed run leaves it empty or missing)"});
    }
    bool first_empty = ops[0].empty();
    for (GatedFigure& f : findings.gated)
      if (!first_empty && !ops[f.later].empty()) figures.push_back(std::move(f));
    gate =
        settle_gate(judge_gates(figures, ops.size() > 2), "compare", options.allow_unjudged, err);
  }
  if (options.backtraces) {
    // Every later file against the first, one section each.
    std::vector<std::vector<ProcessBacktraces>> traces;
    std::vector<SymbolTable> symbols;
    for (const std::string& f : options.files) {
      traces.push_back(f == "-" ? std::vector<ProcessBacktraces>{} : read_backtraces({f}));
      symbols.push_back(traces.back().empty() || !options.symbolizer
                            ? SymbolTable{}
                            : symbolize(traces.back(), *options.symbolizer));
    }
    std::string text;
    for (size_t i = 1; i < options.files.size(); ++i) {
      if (i > 1) text += '\n';
      StackSide before{names[0], &traces[0], &symbols[0], &ops[0]};
      StackSide after{names[i], &traces[i], &symbols[i], &ops[i]};
      text += render_stack_diff(stack_diff(before, after), names[0], names[i]);
    }
    out(text);
    return final_status(status, failed, gate);
  }
  FormatInput input;
  input.table = std::move(table);
  if (format_entry(options.format).draws) {
    // The icicles: each file's backtraces read again and symbolized.
    for (const std::string& f : options.files) {
      input.backtraces.push_back(f == "-" ? std::vector<ProcessBacktraces>{}
                                          : read_backtraces({f}));
      input.symbols.push_back(input.backtraces.back().empty() || !options.symbolizer
                                  ? SymbolTable{}
                                  : symbolize(input.backtraces.back(), *options.symbolizer));
    }
    input.names = names;
    input.inputs = std::move(ops);
    input.spool = spool ? &*spool : nullptr;
  }
  make_format(options.format, Command::kCompare)->write(std::move(input), out);
  return final_status(status, failed, gate);
}

int run_compare(const CompareOptions& options, std::string* out, const MessageSink& err) {
  out->clear();
  return run_compare(
      options, [out](std::string_view bytes) { out->append(bytes); }, err);
}

}  // namespace account
